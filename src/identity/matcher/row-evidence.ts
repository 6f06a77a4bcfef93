/**
 * Rows that no candidate can help. A candidate's features are bounded by what the row itself gives: a row without
 * an email has the email level `missing` against every person, a row without a street address never agrees on
 * one, a row without a dob has none to compare. When no combination of levels the row allows passes canQualify
 * (levels.ts), none of its candidates can take part in a decision: its blocks are not looked up at all (its street
 * keys still are, for the spatial level, which needs no candidate). Name + ZIP rows without a dob are the common
 * case: a fifth of the benchmark's mixed list, and a quarter of its candidates.
 *
 * Like decidableSql this is derived from canQualify by enumeration, never restated, so it follows the level rules.
 * Model fitting reads every candidate of its sample and keeps using rowKeySources.
 */
import { comparedDob, localityZips, type NormalizedRecord } from '../normalize/record.ts';
import { canQualify } from './levels.ts';
import { hasUnblockedZips, k64, rowHouseZips, rowKeySources, rowStreetKeys, type KeySource, type StagedKey } from './keys.ts';
import { ADDR, DOB, EMAIL, FIRST, ID, LAST, type Features } from './types.ts';

/** What a row gives that its candidates' feature levels depend on. */
export interface RowEvidence {
  /** An email or email hash (every email level possible). */
  email: boolean;
  phone: boolean;
  /** An address key (unit, street or history possible). */
  addressKey: boolean;
  /** A "<zip5>:<house>" value (the `house` level possible). */
  house: boolean;
  /** A locality ZIP5 (the `zip` level possible). */
  zip: boolean;
  /** Any address or ZIP (the address level is `disagree`, not `missing`, where nothing agrees). */
  address: boolean;
  /** The dob as compared: a whole date, year and month, year alone, or none. */
  dob: 'whole' | 'month' | 'year' | null;
  first: boolean;
  last: boolean;
}

export function rowEvidence(row: NormalizedRecord): RowEvidence {
  const dob = comparedDob(row);
  const zip = localityZips(row).length > 0;
  return {
    email: row.emailHashes.length > 0,
    phone: row.phoneHashes.length > 0,
    addressKey: row.addressKeys.some((k) => k !== null) || row.cityAddressKeys.length > 0,
    house: rowHouseZips(row).length > 0,
    zip,
    address: row.addresses.length > 0 || zip,
    dob: dob === null ? null : dob.length === 10 ? 'whole' : dob.length === 7 ? 'month' : 'year',
    first: row.name.first !== null,
    last: row.name.last !== null,
  };
}

const all = (levels: Record<string, number>) => Object.values(levels);
const DOB_LEVELS = {
  whole: [DOB.exact, DOB.digit, DOB.swap, DOB.yearMonth, DOB.disagree],
  month: [DOB.month, DOB.disagree],
  year: [DOB.year, DOB.disagree],
} as const;

/**
 * Every combination of feature levels a candidate of such a row can have: a superset of what the comparators
 * (compare.ts and its SQL twins) give, since any level is possible against some person where the row gives the
 * field, and `missing` always is (the person may lack it).
 */
export function* possibleFeatures(e: RowEvidence): Generator<Features> {
  const email = e.email ? all(EMAIL) : [ID.missing];
  const phone = e.phone ? all(ID) : [ID.missing];
  const address: number[] = [ADDR.missing];
  if (e.address) address.push(ADDR.disagree);
  if (e.zip) address.push(ADDR.zip);
  if (e.house) address.push(ADDR.house);
  if (e.addressKey) address.push(ADDR.unit, ADDR.street, ADDR.history);
  const dob = [DOB.missing, ...(e.dob ? DOB_LEVELS[e.dob] : [])];
  for (const swapped of [false, true]) {
    // Crosswise (swapped), the row's surname is compared as the first name and its first name as the surname.
    const first = (swapped ? e.last : e.first) ? all(FIRST) : [FIRST.missing];
    const last = (swapped ? e.first : e.last) ? all(LAST) : [LAST.missing];
    for (const em of email)
      for (const ph of phone)
        for (const ad of address)
          for (const d of dob)
            for (const f of first) {
              for (const l of last) yield { email: em, phone: ph, first: f, last: l, dob: d, address: ad, swapped };
            }
  }
}

const DOB_CODE = { whole: 1, month: 2, year: 3 } as const;
const signature = (e: RowEvidence) =>
  Number(e.email) |
  (Number(e.phone) << 1) |
  (Number(e.addressKey) << 2) |
  (Number(e.house) << 3) |
  (Number(e.zip) << 4) |
  (Number(e.address) << 5) |
  (Number(e.first) << 6) |
  (Number(e.last) << 7) |
  ((e.dob ? DOB_CODE[e.dob] : 0) << 8);
// One answer per signature (1,024 at most), each found once by enumeration (a few thousand combinations at most).
const answers = new Map<number, boolean>();

/** Whether some candidate of a row with this evidence could take part in a decision (canQualify of a possible vector). */
export function rowCanQualify(e: RowEvidence): boolean {
  const sig = signature(e);
  let answer = answers.get(sig);
  if (answer === undefined) {
    answer = false;
    for (const f of possibleFeatures(e)) {
      if (canQualify(f)) {
        answer = true;
        break;
      }
    }
    answers.set(sig, answer);
  }
  return answer;
}

/**
 * Whether the row's full-name blocks (fl:) could find a candidate that takes part in a decision and that none of
 * the row's other blocks finds. Those other blocks bound such a candidate, because the index never caps them
 * (match-index.ts): dob + either name (d:) holds every person's exact dob with each of their names, so its dob is
 * not the row's exact dob; surname + ZIP (n:) holds every person's surname in each of their ZIPs, so a ZIP of its
 * that agrees is one the row has no name + ZIP block for (a ZIP of a city of more than CITY_NAME_BLOCK_MAX_ZIPS);
 * a full-name block gives the row's surname, or its first name as the person's surname crosswise, and the row
 * stages d: and n: keys of both. The rest of the evidence is the row's. On the mixed list this leaves out 243,000 of
 * 6.1M staged keys; the decidable candidates are the same (decision 045).
 */
export function fullNameCanHelp(row: NormalizedRecord, e: RowEvidence = rowEvidence(row)): boolean {
  const bounded = { ...e, zip: hasUnblockedZips(row) };
  const sig = signature(bounded);
  let answer = fullNameAnswers.get(sig);
  if (answer === undefined) {
    answer = false;
    for (const f of possibleFeatures(bounded)) {
      if (f.dob !== DOB.exact && canQualify(f)) {
        answer = true;
        break;
      }
    }
    fullNameAnswers.set(sig, answer);
  }
  return answer;
}
const fullNameAnswers = new Map<number, boolean>();

/**
 * The blocks the matcher looks up for a row: all of them, or only its street keys when no candidate could help;
 * its full-name blocks only where fullNameCanHelp.
 */
export function matchKeySources(row: NormalizedRecord): KeySource[] {
  const e = rowEvidence(row);
  if (!rowCanQualify(e)) return rowStreetKeys(row);
  // (A row with an email or phone has no full-name blocks anyway: no need to ask.)
  return rowKeySources(row, { fullNameBlocks: e.email || e.phone || fullNameCanHelp(row, e) });
}

/** matchKeySources reduced to 64 bits (the point lookups). */
export function matchKeys(row: NormalizedRecord): StagedKey[] {
  return matchKeySources(row).map(({ s, kind, unit }) => ({ k: k64(s), kind, unit }));
}
