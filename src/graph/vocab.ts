/**
 * Closed vocabularies of the synthetic graph, shared by the generator (which draws them) and the field
 * catalog (which lists them). Order matters for bitmask fields: bit i is `values[i]`, so append only.
 */

export const GENDERS = ['M', 'F'] as const;
export const INCOME_BANDS = ['lt_25k', '25k_50k', '50k_75k', '75k_100k', '100k_150k', '150k_250k', '250k_plus'] as const;
/** Lower bound in USD of each income band, used to draw household_income inside its band. */
export const INCOME_BAND_BOUNDS = [10_000, 25_000, 50_000, 75_000, 100_000, 150_000, 250_000, 600_000] as const;
export const EDUCATION = ['less_than_high_school', 'high_school', 'some_college', 'bachelors', 'graduate'] as const;
export const MARITAL_STATUS = ['single', 'married', 'divorced', 'widowed'] as const;
export const OCCUPATION_GROUPS = [
  'management', 'professional', 'technology', 'healthcare', 'education', 'sales', 'office_admin',
  'service', 'trades', 'retired', 'student', 'homemaker',
] as const;
export const NET_WORTH_BANDS = ['lt_25k', '25k_100k', '100k_250k', '250k_500k', '500k_1m', '1m_plus'] as const;
export const DWELLING_TYPES = ['single_family', 'multi_family'] as const;
export const EMAIL_KINDS = ['personal', 'work'] as const;
export const PHONE_KINDS = ['mobile', 'landline'] as const;

/**
 * Interests with a propensity profile: base probability for an adult, multipliers for age
 * 18-34 / 35-54 / 55+, for men / women, and for high-income households. The multipliers give a
 * lookalike or propensity model real signal to find.
 */
type Profile = readonly [base: number, young: number, mid: number, senior: number, male: number, female: number, rich: number];
export const INTEREST_PROFILES: Readonly<Record<string, Profile>> = {
  automotive: [0.18, 1.2, 1.0, 0.8, 1.8, 0.4, 1.0],
  beauty: [0.16, 1.5, 1.0, 0.6, 0.2, 1.9, 1.1],
  books: [0.22, 0.8, 1.0, 1.3, 0.7, 1.3, 1.2],
  camping: [0.12, 1.3, 1.1, 0.6, 1.3, 0.8, 0.9],
  cooking: [0.25, 1.0, 1.1, 1.0, 0.7, 1.3, 1.1],
  crafts: [0.12, 0.8, 1.0, 1.4, 0.3, 1.7, 0.9],
  cycling: [0.08, 1.3, 1.1, 0.6, 1.4, 0.7, 1.4],
  diy_home_improvement: [0.18, 0.7, 1.3, 1.0, 1.4, 0.7, 1.1],
  fashion: [0.15, 1.6, 0.9, 0.5, 0.5, 1.5, 1.3],
  fishing: [0.13, 0.9, 1.1, 1.1, 1.7, 0.4, 0.9],
  fitness: [0.22, 1.5, 1.0, 0.6, 1.0, 1.0, 1.3],
  gaming: [0.20, 2.0, 0.8, 0.3, 1.5, 0.6, 0.9],
  gardening: [0.18, 0.5, 1.0, 1.6, 0.8, 1.2, 1.1],
  golf: [0.08, 0.6, 1.1, 1.4, 1.7, 0.4, 2.2],
  health_wellness: [0.20, 1.0, 1.0, 1.1, 0.7, 1.3, 1.2],
  hunting: [0.08, 0.9, 1.1, 1.0, 1.9, 0.2, 0.9],
  investing: [0.12, 0.7, 1.1, 1.3, 1.3, 0.7, 2.4],
  movies: [0.30, 1.3, 1.0, 0.8, 1.0, 1.0, 1.0],
  music: [0.30, 1.5, 1.0, 0.6, 1.0, 1.0, 1.0],
  outdoors: [0.20, 1.2, 1.1, 0.8, 1.2, 0.8, 1.0],
  parenting: [0.10, 1.4, 1.5, 0.2, 0.6, 1.4, 1.0],
  pets_cats: [0.14, 1.1, 1.0, 1.0, 0.7, 1.3, 1.0],
  pets_dogs: [0.22, 1.1, 1.1, 0.9, 1.0, 1.0, 1.1],
  photography: [0.09, 1.2, 1.0, 1.0, 1.1, 0.9, 1.4],
  politics: [0.10, 0.6, 1.0, 1.5, 1.2, 0.8, 1.3],
  running: [0.09, 1.6, 1.0, 0.4, 1.1, 0.9, 1.3],
  sports_baseball: [0.10, 0.8, 1.0, 1.2, 1.6, 0.5, 1.0],
  sports_basketball: [0.11, 1.6, 1.0, 0.5, 1.6, 0.5, 1.0],
  sports_football: [0.20, 1.1, 1.1, 0.9, 1.6, 0.5, 1.0],
  sports_soccer: [0.07, 1.8, 0.9, 0.3, 1.4, 0.7, 1.0],
  technology: [0.18, 1.5, 1.0, 0.6, 1.5, 0.6, 1.4],
  travel_domestic: [0.22, 0.9, 1.0, 1.2, 1.0, 1.0, 1.5],
  travel_international: [0.09, 1.1, 0.9, 1.1, 1.0, 1.0, 2.5],
  wine: [0.10, 0.8, 1.1, 1.1, 0.9, 1.1, 2.0],
  yoga: [0.07, 1.6, 1.0, 0.6, 0.3, 1.8, 1.4],
  charity_donor: [0.10, 0.5, 1.0, 1.6, 0.9, 1.1, 2.0],
  collectibles: [0.07, 0.8, 1.0, 1.3, 1.3, 0.7, 1.1],
  boating: [0.05, 0.7, 1.1, 1.2, 1.4, 0.6, 2.5],
  home_decor: [0.14, 1.0, 1.2, 0.9, 0.4, 1.6, 1.2],
  couponing: [0.12, 0.9, 1.0, 1.2, 0.5, 1.5, 0.5],
};
export const INTERESTS: readonly string[] = Object.keys(INTEREST_PROFILES);

/** Purchase behaviours, profiled the same way as interests. */
export const PURCHASE_BEHAVIOR_PROFILES: Readonly<Record<string, Profile>> = {
  online_shopper: [0.55, 1.3, 1.0, 0.7, 0.9, 1.1, 1.1],
  big_box_shopper: [0.45, 0.9, 1.1, 1.0, 1.0, 1.0, 0.8],
  luxury_buyer: [0.04, 1.1, 1.0, 0.9, 0.9, 1.1, 4.0],
  discount_shopper: [0.30, 1.1, 1.0, 1.0, 0.8, 1.2, 0.4],
  catalog_buyer: [0.08, 0.4, 0.9, 1.8, 0.7, 1.3, 1.1],
  subscription_box: [0.10, 1.8, 1.0, 0.4, 0.8, 1.2, 1.2],
  grocery_delivery: [0.15, 1.6, 1.1, 0.5, 0.9, 1.1, 1.4],
  pet_supplies: [0.25, 1.0, 1.1, 0.9, 0.9, 1.1, 1.0],
  baby_products: [0.06, 2.5, 0.8, 0.1, 0.7, 1.3, 1.0],
  home_improvement_buyer: [0.20, 0.7, 1.3, 1.0, 1.3, 0.8, 1.2],
  electronics_buyer: [0.22, 1.4, 1.0, 0.7, 1.4, 0.7, 1.3],
  apparel_buyer: [0.35, 1.3, 1.0, 0.7, 0.7, 1.3, 1.2],
  beauty_buyer: [0.18, 1.4, 1.0, 0.7, 0.2, 1.8, 1.2],
  sporting_goods_buyer: [0.14, 1.3, 1.1, 0.6, 1.4, 0.7, 1.1],
  travel_booker: [0.18, 1.0, 1.0, 1.1, 1.0, 1.0, 1.8],
  auto_parts_buyer: [0.10, 1.2, 1.1, 0.8, 1.8, 0.3, 0.9],
  books_media_buyer: [0.18, 0.9, 1.0, 1.2, 0.9, 1.1, 1.1],
  health_supplements: [0.15, 1.1, 1.1, 0.9, 0.9, 1.1, 1.2],
  organic_food: [0.12, 1.3, 1.1, 0.7, 0.8, 1.2, 1.7],
  meal_kits: [0.06, 1.8, 1.0, 0.4, 0.9, 1.1, 1.6],
  mobile_payments: [0.35, 1.8, 1.0, 0.4, 1.1, 0.9, 1.1],
  credit_card_rewards: [0.25, 0.9, 1.1, 1.0, 1.1, 0.9, 1.8],
  new_car_buyer: [0.05, 0.8, 1.2, 1.0, 1.2, 0.8, 2.0],
  used_car_buyer: [0.09, 1.5, 1.0, 0.6, 1.2, 0.8, 0.6],
};
export const PURCHASE_BEHAVIORS: readonly string[] = Object.keys(PURCHASE_BEHAVIOR_PROFILES);

/** Personal email domains with rough market shares (percent). */
export const PERSONAL_EMAIL_DOMAINS: ReadonlyArray<readonly [string, number]> = [
  ['gmail.com', 42], ['yahoo.com', 14], ['hotmail.com', 8], ['outlook.com', 7], ['icloud.com', 8],
  ['aol.com', 5], ['comcast.net', 4], ['att.net', 3], ['msn.com', 2], ['live.com', 2],
  ['verizon.net', 2], ['protonmail.com', 1], ['me.com', 1], ['sbcglobal.net', 1],
];

/** Word appended to a surname to make an employer domain (`harrisgroup.com`). */
export const EMPLOYER_DOMAIN_WORDS = [
  'group', 'corp', 'inc', 'partners', 'labs', 'health', 'co', 'systems', 'logistics', 'consulting',
  'holdings', 'industries', 'financial', 'law', 'realty', 'foods', 'energy', 'tech', 'media', 'builders',
] as const;

/** Common street names that are not surnames; surnames from the Census list fill out the rest. */
export const STREET_WORDS = [
  'MAIN', 'OAK', 'PINE', 'MAPLE', 'CEDAR', 'ELM', 'WALNUT', 'CHESTNUT', 'SPRUCE', 'BIRCH', 'WILLOW', 'HICKORY',
  'LAKE', 'HILL', 'RIDGE', 'PARK', 'VIEW', 'MEADOW', 'FOREST', 'RIVER', 'SPRING', 'SUNSET', 'HIGHLAND',
  'CHURCH', 'MILL', 'SCHOOL', 'CENTER', 'MARKET', 'UNION', 'LIBERTY', 'HIGH', 'BROAD', 'WATER', 'VALLEY',
  'DOGWOOD', 'MAGNOLIA', 'CHERRY', 'SYCAMORE', 'POPLAR', 'LAUREL', 'ASPEN', 'CYPRESS', 'ORCHARD', 'PROSPECT',
  '1ST', '2ND', '3RD', '4TH', '5TH', '6TH', '7TH', '8TH', '9TH', '10TH', '11TH', '12TH', '14TH', '15TH', '16TH', '20TH',
] as const;

/** Residential street suffix names (USPS primary names) with weights; abbreviations come from usps_suffixes.csv. */
export const STREET_SUFFIX_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['STREET', 30], ['AVENUE', 15], ['ROAD', 12], ['DRIVE', 14], ['LANE', 7], ['COURT', 6], ['BOULEVARD', 3],
  ['WAY', 4], ['PLACE', 3], ['CIRCLE', 3], ['TERRACE', 1], ['PARKWAY', 1], ['TRAIL', 1],
];

/** Real area codes per state (a representative set, enough to make phones look local). */
export const AREA_CODES: Readonly<Record<string, string>> = {
  AL: '205 251 256 334', AK: '907', AZ: '480 520 602 623 928', AR: '479 501 870',
  CA: '209 213 310 323 408 415 510 530 559 562 619 626 650 661 707 714 760 805 818 831 858 909 916 925 949 951',
  CO: '303 719 720 970', CT: '203 860', DE: '302', DC: '202',
  FL: '239 305 321 352 386 407 561 727 754 772 786 813 850 863 904 941 954',
  GA: '229 404 470 478 678 706 770 912', HI: '808', ID: '208', IL: '217 224 309 312 618 630 708 773 815 847',
  IN: '219 260 317 574 765 812', IA: '319 515 563 641 712', KS: '316 620 785 913', KY: '270 502 606 859',
  LA: '225 318 337 504 985', ME: '207', MD: '240 301 410 443', MA: '339 351 413 508 617 774 781 857 978',
  MI: '231 248 269 313 517 586 616 734 810 906 989', MN: '218 320 507 612 651 763 952', MS: '228 601 662',
  MO: '314 417 573 636 660 816', MT: '406', NE: '308 402', NV: '702 775', NH: '603',
  NJ: '201 551 609 732 848 856 862 908 973', NM: '505 575',
  NY: '212 315 347 516 518 585 607 631 646 716 718 845 914 917 929', NC: '252 336 704 828 910 919 980 984',
  ND: '701', OH: '216 234 330 419 440 513 567 614 740 937', OK: '405 539 580 918', OR: '458 503 541 971',
  PA: '215 267 412 484 570 610 717 724 814 878', RI: '401', SC: '803 843 864', SD: '605',
  TN: '423 615 731 865 901 931',
  TX: '210 214 254 281 325 361 409 430 432 469 512 682 713 737 806 817 830 832 903 915 936 940 956 972 979',
  UT: '385 435 801', VT: '802', VA: '276 434 540 571 703 757 804', WA: '206 253 360 425 509', WV: '304 681',
  WI: '262 414 608 715 920', WY: '307', PR: '787 939', GU: '671', VI: '340', MP: '670', AS: '684',
};
