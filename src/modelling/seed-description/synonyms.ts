/**
 * Everyday words for catalog conditions. Each entry lists phrases (lower case, '|' between them) and
 * what they mean in catalog terms. An entry whose field or values the live catalog lacks is skipped
 * when the lexicon is built, so the table may name more than one catalog has. Catalog vocabularies
 * themselves ("married", "golf", "online shopper", "single family") need no entry: lexicon.ts reads
 * them from the field descriptors. Ages of generations are as of 2026.
 */

export type Meaning =
  /** field = value, or IN values; negatable. */
  | { kind: 'value'; field: string; values: readonly (string | boolean)[] }
  /** An ARRAY field holds the value (several: any of them). */
  | { kind: 'contains'; field: string; values: readonly string[] }
  | { kind: 'range'; field: string; op: '=' | '>=' | '<=' | '>' | '<' | 'BETWEEN'; value: number | readonly [number, number] };

const v = (field: string, ...values: (string | boolean)[]): Meaning => ({ kind: 'value', field, values });
const has = (field: string, ...values: string[]): Meaning => ({ kind: 'contains', field, values });
const age = (op: '>=' | '<' | 'BETWEEN', value: number | [number, number]): Meaning => ({ kind: 'range', field: 'age', op, value });
const interest = (...values: string[]) => has('interests', ...values);
const buys = (...values: string[]) => has('purchase_behaviors', ...values);

export const SYNONYMS: ReadonlyArray<readonly [string, Meaning[]]> = [
  // Residence and household
  ['homeowners|homeowner|home owners|home owner|own their home|own their homes|own a home|owns a home', [v('homeowner', true)]],
  ['renters|renter|renting|rent their home|tenants', [v('homeowner', false)]],
  [
    'parents|with kids|with children|families with kids|families with children|has kids|have kids|have children',
    [v('presence_of_children', true)],
  ],
  ['moms|mums|mothers', [v('gender', 'F'), v('presence_of_children', true)]],
  ['dads|fathers', [v('gender', 'M'), v('presence_of_children', true)]],
  ['no kids|no children|without kids|without children|childless|child free', [v('presence_of_children', false)]],
  ['empty nesters', [v('presence_of_children', false), age('>=', 45)]],
  ['apartment|apartments|apartment dwellers|condo|condos|multifamily|multi family homes', [v('dwelling_type', 'multi_family')]],
  ['house|houses|single family homes|detached homes', [v('dwelling_type', 'single_family')]],
  ['with email|email address|email addresses|emailable', [v('has_email', true)]],
  ['with phone|with a phone|phone number|phone numbers', [v('has_phone', true)]],
  // Gender
  ['men|man|male|males|guys', [v('gender', 'M')]],
  ['women|woman|female|females|ladies', [v('gender', 'F')]],
  // Marital status
  ['singles', [v('marital_status', 'single')]],
  ['newlyweds|married couples', [v('marital_status', 'married')]],
  ['widows|widowers', [v('marital_status', 'widowed')]],
  // Education
  ['college graduates|college grads|college educated|university graduates|degree holders', [v('education', 'bachelors', 'graduate')]],
  [
    'graduate degree|graduate degrees|postgraduates|advanced degree|advanced degrees|masters degree|phd|doctorate',
    [v('education', 'graduate')],
  ],
  ['bachelors degree|bachelor degree', [v('education', 'bachelors')]],
  ['high school graduates|high school diploma', [v('education', 'high_school')]],
  // Occupation
  ['managers|executives|business owners', [v('occupation_group', 'management')]],
  ['professionals|white collar', [v('occupation_group', 'professional')]],
  ['tech workers|software engineers|engineers|developers|programmers|it professionals', [v('occupation_group', 'technology')]],
  ['nurses|doctors|healthcare workers|health care workers|medical professionals', [v('occupation_group', 'healthcare')]],
  ['teachers|educators|professors', [v('occupation_group', 'education')]],
  ['salespeople|sales reps|sales professionals', [v('occupation_group', 'sales')]],
  ['office workers|administrative staff', [v('occupation_group', 'office_admin')]],
  ['service workers', [v('occupation_group', 'service')]],
  ['tradespeople|tradesmen|contractors|electricians|plumbers|blue collar', [v('occupation_group', 'trades')]],
  ['retirees|retired people', [v('occupation_group', 'retired')]],
  ['students|college students', [v('occupation_group', 'student')]],
  ['homemakers|stay at home parents', [v('occupation_group', 'homemaker')]],
  // Income and wealth
  ['high income|high incomes|high earners|high earning|affluent|wealthy|rich|upper income', [v('income_band', '150k_250k', '250k_plus')]],
  ['upper middle income|upper middle class', [v('income_band', '100k_150k', '150k_250k')]],
  ['middle income|middle class', [v('income_band', '50k_75k', '75k_100k')]],
  ['low income|low incomes|low earners|lower income', [v('income_band', 'lt_25k', '25k_50k')]],
  ['millionaires', [v('net_worth_band', '1m_plus')]],
  ['high net worth', [v('net_worth_band', '500k_1m', '1m_plus')]],
  // Age
  ['gen z|generation z|zoomers', [age('BETWEEN', [14, 29])]],
  ['millennials|millennial|gen y', [age('BETWEEN', [30, 45])]],
  ['gen x|generation x', [age('BETWEEN', [46, 61])]],
  ['baby boomers|boomers', [age('BETWEEN', [62, 80])]],
  ['seniors|senior citizens|elderly|older adults', [age('>=', 65)]],
  ['young adults|young people', [age('BETWEEN', [18, 34])]],
  ['middle aged|middle age', [age('BETWEEN', [45, 64])]],
  ['teens|teenagers', [age('BETWEEN', [13, 19])]],
  ['adults', [age('>=', 18)]],
  // Interests
  ['golfers|golfer', [interest('golf')]],
  ['anglers|fishermen|fishers', [interest('fishing')]],
  ['hunters', [interest('hunting')]],
  ['gamers|video games|video gamers', [interest('gaming')]],
  ['runners|joggers|jogging', [interest('running')]],
  ['cyclists|bikers|biking', [interest('cycling')]],
  ['yogis', [interest('yoga')]],
  ['gardeners', [interest('gardening')]],
  ['cooks|home cooks|foodies', [interest('cooking')]],
  ['readers|book lovers|reading', [interest('books')]],
  ['travelers|travellers|travel', [interest('travel_domestic', 'travel_international')]],
  ['international travelers|international travellers|international travel', [interest('travel_international')]],
  ['domestic travelers|domestic travellers|domestic travel', [interest('travel_domestic')]],
  ['dog owners|dog lovers|dogs', [interest('pets_dogs')]],
  ['cat owners|cat lovers|cats', [interest('pets_cats')]],
  ['pet owners|pet lovers|pets', [interest('pets_dogs', 'pets_cats')]],
  ['investors', [interest('investing')]],
  ['wine lovers|wine enthusiasts', [interest('wine')]],
  ['campers', [interest('camping')]],
  ['boaters', [interest('boating')]],
  ['photographers', [interest('photography')]],
  ['fitness enthusiasts|gym goers|gym', [interest('fitness')]],
  ['outdoor enthusiasts|outdoorsy|outdoor', [interest('outdoors')]],
  ['crafters|crafting', [interest('crafts')]],
  ['collectors', [interest('collectibles')]],
  ['donors|charitable givers', [interest('charity_donor')]],
  ['tech enthusiasts|techies|gadgets', [interest('technology')]],
  ['fashionistas', [interest('fashion')]],
  ['football fans', [interest('sports_football')]],
  ['baseball fans', [interest('sports_baseball')]],
  ['basketball fans', [interest('sports_basketball')]],
  ['soccer fans', [interest('sports_soccer')]],
  ['sports fans', [interest('sports_football', 'sports_baseball', 'sports_basketball', 'sports_soccer')]],
  ['diy|diyers|do it yourselfers|home improvement', [interest('diy_home_improvement')]],
  ['music lovers', [interest('music')]],
  ['movie buffs|moviegoers|film lovers', [interest('movies')]],
  ['couponers|coupon clippers', [interest('couponing')]],
  // Purchase behaviours
  ['bargain hunters|deal seekers', [buys('discount_shopper')]],
  ['luxury shoppers', [buys('luxury_buyer')]],
  ['new car intenders|in market for a new car', [buys('new_car_buyer')]],
];

/** Words that carry no condition of their own (never reported as not understood). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or , of in from who whom that which are is be being with having has have like likes love loves enjoy enjoys ' +
    'interested into fans fan people persons person audience audiences customers consumers users folks individuals those ' +
    'living live lives based located residents resident around near area state at for to by on all any some also plus as ' +
    'look looks lookalike lookalikes similar find me us our my want target targeting reach households household families family ' +
    'buy buys buying bought shop shops shopping purchase purchases do does'
  ).split(' '),
);

/** Words that turn the next condition around. */
export const NEGATIONS: ReadonlySet<string> = new Set(['not', 'non', 'no', 'without', 'excluding', 'except', 'dont', 'doesnt', 'never']);
