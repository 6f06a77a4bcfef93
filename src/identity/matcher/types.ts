/**
 * Public shapes of the matching engine (issue #5). See docs in ./README.md for the meaning of
 * each level and match_type.
 */

export type MatchLevel = 'I' | 'H' | 'D' | 'S' | 'A';
export const MATCH_LEVELS: readonly MatchLevel[] = ['I', 'H', 'D', 'S', 'A'];

export type SpatialMode = 'residential' | 'work' | 'auto';

/**
 * Which evidence produced the match. I: person_id, email+name, phone+name, name_address,
 * address_history, name_dob, email+address, phone+address, email+dob, phone+dob, name_partial_dob_zip.
 * D: email, phone, email+phone. H: household. A: address. S: spatial_residential, spatial_work.
 */
export type MatchType =
  | 'person_id'
  | 'email+name'
  | 'phone+name'
  | 'name_address'
  | 'address_history'
  | 'name_dob'
  | 'email+address'
  | 'phone+address'
  | 'email+dob'
  | 'phone+dob'
  | 'name_partial_dob_zip'
  | 'email'
  | 'phone'
  | 'email+phone'
  | 'household'
  | 'address'
  | 'spatial_residential'
  | 'spatial_work';

export interface MatchWarning {
  field: string;
  code: string;
  message: string;
}

export interface MatchResult {
  rowId: string;
  personKey: bigint | null;
  householdKey: bigint | null;
  matchLevel: MatchLevel | null;
  matchType: MatchType | null;
  matchConfidence: number | null;
  warnings: MatchWarning[];
}

export interface MatchOptions {
  matchLevels: MatchLevel[];
  spatialMode: SpatialMode;
  /** rowId -> graph person key decoded by the caller from a valid tier-01 id of this organization. */
  directPersonKeys?: Map<string, bigint>;
}

/** Comparison levels per field (small integers so SQL and JS share them; 0 is always "missing"). */
export const ID = { missing: 0, agree: 1, disagree: 2 } as const;
/**
 * Email adds `near` to ID: no hash agrees, but a graph email shares the row's folded local part at another
 * domain, or is at the row's domain under the row's exact full name with a local part at most
 * EMAIL_NEAR_MAX_EDITS edits away (the `el:` / `ed:` blocks of keys.ts). Appended, so older params files load.
 */
export const EMAIL = { ...ID, near: 3 } as const;
/**
 * First-name levels; Jaro-Winkler in two bands: `fuzzy` >= FUZZY_NAME (0.9), `fuzzyLow` >= FUZZY_NAME_LOW (0.8), which
 * is no name agreement but no conflict either (compare.ts; levels.ts counts it like an initial). Appended last, so
 * older params files load.
 */
export const FIRST = { missing: 0, exact: 1, nickname: 2, fuzzy: 3, initial: 4, disagree: 5, fuzzyLow: 6 } as const;
/**
 * `phonetic`: not exact nor fuzzy, but the same Soundex code (keys.ts soundex). `fuzzyLow`: neither, but Jaro-Winkler
 * >= FUZZY_NAME_LOW (0.8), a typo too heavy for `fuzzy` in a short surname (GRAY/GRAHY, LEE/LEO): no surname agreement
 * and no conflict either (levels.ts). Both appended, so older params files load.
 */
export const LAST = { missing: 0, exact: 1, fuzzy: 2, disagree: 3, phonetic: 4, fuzzyLow: 5 } as const;
/**
 * dob: `digit` = one digit off (one digit of YYYY-MM-DD differs, or the year is one or ten off with month and
 * day the same), `swap` = day and month swapped (same year), `yearMonth` = same year and month, another day.
 * The three together are the former single "partial" level (plus one-digit month/year typos); see dobNear.
 */
export const DOB = { missing: 0, exact: 1, digit: 2, swap: 3, yearMonth: 4, disagree: 5, month: 6, year: 7 } as const;
/*
 * `month`: the row gives only year and month (record.ts dobPartial, "03/1985") and both agree; `year`: it gives
 * only the year and it agrees. A partial dob that does not agree is `disagree`. Appended, so older params load.
 */
/** A damaged but close dob, or one given without its day that agrees (where the level rules used to say "partial"). */
export const dobNear = (level: number): boolean =>
  level === DOB.digit || level === DOB.swap || level === DOB.yearMonth || level === DOB.month;
/**
 * `house`: the house number and ZIP5 of the person's current address agree with an address of the row whose
 * street is spelled otherwise (a misspelled or renamed street; the index has no key for it). Appended, so
 * older params files load (params.ts appendNewLevels).
 */
export const ADDR = { missing: 0, unit: 1, street: 2, history: 3, zip: 4, disagree: 5, house: 6 } as const;

/** One candidate's comparison vector. */
export interface Features {
  email: number;
  phone: number;
  first: number;
  last: number;
  /** First/last matched crosswise (input first = graph last and vice versa). */
  swapped: boolean;
  dob: number;
  address: number;
}

/** What the scorer needs to know about one graph person (pure data; no DuckDB). */
export interface CandidateAttributes {
  personKey: bigint;
  householdKey: bigint | null;
  firstName: string | null;
  lastName: string | null;
  middleName?: string | null;
  /** A known nickname of the person (graph column `nickname`). */
  nickname?: string | null;
  /** YYYY-MM-DD */
  dob: string | null;
  /** Current ZIP5. */
  zip5: string | null;
  /** SHA-256 hex of the person's emails (as stored and provider-folded). */
  emailHashes: readonly string[];
  /** The person's provider-folded emails (for the email `near` level); absent = unknown (no near level). */
  emailKeys?: readonly string[];
  phoneHashes: readonly string[];
  /** Address blocking keys (see addressKey), current and past. */
  addresses: readonly { key: string; unit: string | null; isCurrent: boolean }[];
}

export interface CandidateScore {
  features: Features;
  /** Fellegi-Sunter match weight (sum of log2 m/u). */
  weight: number;
  /** Calibrated probability that the row is this person. */
  probability: number;
}
