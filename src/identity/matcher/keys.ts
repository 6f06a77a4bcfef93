/**
 * Blocking keys. Every block (email, phone, address, surname+ZIP5, dob+name) is a namespaced
 * string ("e:<first 16 hex digits of the email's SHA-256>", "a:123|MAIN|02134", ...) reduced to 64 bits
 * by key-hash.ts (part of its MD5; the same in JS and SQL), as UBIGINT. One integer key column lets
 * all blocks live in one index table joined with one equi-join (each block is still its own key space, so it
 * is a UNION of blocks, never an OR), and 8-byte keys keep hash tables and the ART index small. A 64-bit
 * collision (~1e-5 chance over the whole graph) only adds a candidate, which scoring then rejects.
 */
import { boundedMemo } from '../../lib/memo.ts';
import { k64, K64_SQL } from './key-hash.ts';
import { localityZips, recordZips, type NormalizedRecord } from '../normalize/record.ts';
import type { AddressKey } from '../normalize/address/address.ts';

export const KIND = {
  email: 1,
  phone: 2,
  address: 3,
  addressHistory: 4,
  nameZip: 5,
  dob: 6,
  street: 7,
  dobInitials: 8,
  fullName: 9,
  /** `el:<local part>` of the provider-folded email: survives a typo in the domain. */
  emailLocal: 10,
  /** `ed:<domain>|<first>|<last>`, unit = the folded local part: survives a typo in the local part. */
  emailDomainName: 11,
  /** `dp:<dob>|<Soundex of the surname>`: a surname typo that keeps its sound. */
  dobSoundex: 12,
} as const;

/** Shortest folded local part that blocks on its own (`el:`): "jo@" or "info@" would say nothing. */
export const EMAIL_LOCAL_MIN = 4;

/**
 * Blocks of the kinds that can grow with common values (full name, dob + initials) are left out of
 * the index when more graph persons than this share them: a block that common tells nothing and
 * would only flood the row with candidates (the "skip common blocks" rule of record linkers).
 */
export const COMMON_BLOCK_MAX = 64;

/**
 * A record without a ZIP (or with one that is not its city's) blocks on name + ZIP in each ZIP of its city
 * (record.ts cityZip5s) only when the city has at most this many: the name + ZIP blocks are not capped, and a
 * common surname across a city of a hundred ZIPs would flood the row with candidates. (Its street address is
 * keyed in every ZIP of the city.)
 */
export const CITY_NAME_BLOCK_MAX_ZIPS = 20;

/** Whether an address key is a real one (its locality a ZIP5), not a city-keyed one that no graph key can equal. */
const zipKeyed = (a: { key: string } | null) => a !== null && /\|[0-9]{5}$/.test(a.key);

/**
 * The `house` address level's value of an address key: "<zip5>:<house number>" (the leading digits of its
 * house part), or null for a PO box, a key without a ZIP5 or without a number. m_person.house is the same
 * number of the person's current address (match-index.ts).
 */
export function houseZipOf(key: string): string | null {
  const [house, , locality] = key.split('|') as [string, string | undefined, string | undefined];
  if (house === 'POBOX' || !locality || !/^[0-9]{5}$/.test(locality)) return null;
  const m = /^[0-9]+/.exec(house);
  return m ? `${locality}:${m[0]}` : null;
}

/** The row's "<zip5>:<house>" values (houseZipOf of its address keys, the city-keyed ones too), distinct. */
export function rowHouseZips(row: NormalizedRecord): string[] {
  const out: string[] = [];
  const add = (a: AddressKey | null) => {
    const h = a ? houseZipOf(a.key) : null;
    if (h && !out.includes(h)) out.push(h);
  };
  for (const a of row.addressKeys) add(a);
  for (const a of row.cityAddressKeys) add(a);
  return out;
}

/**
 * Spatial level: an input house number is "on" a graph street when it lies within the street's
 * numbered range (lowest to highest current residence in that ZIP) widened by this much each way.
 */
export const STREET_RANGE_SLACK = 100;

/** House number of an address key ("123A|MAIN|02134" -> 123), or null (PO box, no digits, no ZIP5 locality). */
export function streetOfKey(key: string): { street: string; house: number } | null {
  const [house, core, locality] = key.split('|') as [string, string | undefined, string | undefined];
  if (house === 'POBOX' || !core || !locality || !/^[0-9]{5}$/.test(locality)) return null;
  const m = /^[0-9]+/.exec(house);
  return m ? { street: `st:${core}|${locality}`, house: Number(m[0]) } : null;
}

/** Whether an input house number lies on a graph street whose m_key unit is its range "lo-hi". */
export function onStreet(house: string | null, range: string | null): boolean {
  if (house === null || range === null) return false;
  const [lo, hi] = range.split('-').map(Number) as [number, number];
  const h = Number(house);
  return h >= lo - STREET_RANGE_SLACK && h <= hi + STREET_RANGE_SLACK;
}

/**
 * American Soundex of a name ("ROBERT" -> "R163", "ASHCRAFT" -> "A261", "PFISTER" -> "P236"): the first
 * letter, then the codes of the rest with H and W transparent, vowels separating, runs collapsed (the
 * first letter's own code included), padded to three digits. Null without a letter. SOUNDEX_SQL is its twin.
 */
export function soundex(name: string | null): string | null {
  if (!name) return null;
  return ASCII.test(name) ? soundexAscii(name) : soundexMemo(name);
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * soundex() of an ASCII name in one pass over its characters, without the regular expressions and allocations of
 * soundexReference (every staged row codes its names several times). Equal to it on every ASCII string (tested).
 */
function soundexAscii(name: string): string | null {
  let first = 0;
  let last = ''; // the last code appended in soundexReference's `codes`, vowels' '0' included
  let digits = '';
  for (let i = 0; i < name.length && digits.length < 3; i++) {
    let ch = name.charCodeAt(i);
    if (ch >= 97 && ch <= 122) ch -= 32;
    if (ch < 65 || ch > 90) continue;
    const c = SOUNDEX_CODES[ch - 65]!;
    const isFirst = first === 0;
    if (isFirst) first = ch;
    if (c === '-' || c === last) continue;
    last = c;
    // The first letter's own code is not repeated after it; vowels only separate runs.
    if (!isFirst && c !== '0') digits += c;
  }
  return first === 0 ? null : String.fromCharCode(first) + (digits + '000').slice(0, 3);
}

// Memoized: a file repeats its names.
const soundexMemo = boundedMemo((name: string) => soundexReference(name));

/** The definition (any string): letters A-Z of the upper-cased name, coded as above. */
export function soundexReference(name: string): string | null {
  const letters = name.toUpperCase().replace(/[^A-Z]/g, '');
  if (!letters) return null;
  let codes = '';
  for (const ch of letters) {
    const c = SOUNDEX_CODES[ch.charCodeAt(0) - 65]!;
    if (c !== '-' && c !== codes[codes.length - 1]) codes += c;
  }
  // The first letter's code is not repeated after it (unless the letter was H or W, which have none).
  const rest = letters[0] === 'H' || letters[0] === 'W' ? codes : codes.slice(1);
  return letters[0] + (rest.replace(/0/g, '') + '000').slice(0, 3);
}
/** Code per letter A-Z: vowels and Y '0' (they separate runs), H and W '-' (transparent). */
const SOUNDEX_CODES = '01230120022455012623010202'.replace(/./g, (c, i: number) => ('HW'.includes(String.fromCharCode(65 + i)) ? '-' : c));

/**
 * soundex() in DuckDB SQL over a VARCHAR expression (translate drops H and W; RE2 has no back-references, so one
 * collapse per digit). The letters expression appears twice; DuckDB evaluates the common subexpression once.
 */
export function SOUNDEX_SQL(expr: string): string {
  const l = `regexp_replace(upper(${expr}), '[^A-Z]', '', 'g')`;
  let c = `translate(${l}, 'AEIOUYBFPVCGJKQSXZDTLMNRHW', '000000111122222222334556')`;
  for (const d of '0123456') c = `regexp_replace(${c}, '${d}+', '${d}', 'g')`;
  return `CASE WHEN coalesce(${l}, '') = '' THEN NULL
    ELSE left(${l}, 1) || left(replace(CASE WHEN left(${l}, 1) IN ('H', 'W') THEN ${c} ELSE (${c})[2:] END, '0', '') || '000', 3) END`;
}

export { k64, K64_SQL };

/**
 * Digits of an email or phone SHA-256 (hex) its block key keeps: 64 bits tell a graph's emails apart as well
 * as 256 (the key is reduced to 64 bits anyway), in a quarter of the staged bytes. HASH_KEY_SQL is its twin.
 */
export const HASH_KEY_DIGITS = 16;
export const HASH_KEY_SQL = (hex: string) => `left(${hex}, ${HASH_KEY_DIGITS})`;

export interface StagedKey {
  k: bigint;
  kind: number;
  /** Unit number for address keys (unit-level agreement), else null. */
  unit: string | null;
}

/** A blocking key before the 64-bit reduction (the file path stages these and reduces them in SQL). */
export interface KeySource {
  s: string;
  kind: number;
  unit: string | null;
}

/** The row's canonical given names other than the name itself (BOB -> ROBERT; see normalize/nickname.ts). */
function canonicalsOf(first: string, row: NormalizedRecord): string[] {
  return row.firstNameCanonicals.filter((c) => c !== first);
}

/** Street in ZIP keys of a row (spatial level only, never a candidate): the unit carries the house number. */
export function rowStreetKeys(row: NormalizedRecord): KeySource[] {
  const out: KeySource[] = [];
  for (const a of row.addressKeys) {
    const st = a ? streetOfKey(a.key) : null;
    if (st && !out.some((k) => k.s === st.street)) out.push({ s: st.street, kind: KIND.street, unit: String(st.house) });
  }
  return out;
}

/** Blocking keys of one normalized row. */
export function rowKeys(row: NormalizedRecord): StagedKey[] {
  return rowKeySources(row).map(({ s, kind, unit }) => ({ k: k64(s), kind, unit }));
}

/**
 * The ZIP5s a row has name + ZIP blocks for: its locality ZIPs (its own, then its city's), or only its own when its
 * city has more than CITY_NAME_BLOCK_MAX_ZIPS ZIPs.
 */
export function nameBlockZips(row: NormalizedRecord): readonly string[] {
  return hasUnblockedZips(row) ? recordZips(row) : localityZips(row);
}

/** Whether some locality ZIPs of the row have no name + ZIP blocks: its city's, when it has more than CITY_NAME_BLOCK_MAX_ZIPS. */
export const hasUnblockedZips = (row: NormalizedRecord): boolean => row.cityZip5s.length > CITY_NAME_BLOCK_MAX_ZIPS;

/**
 * The namespaced key strings of one row, distinct, first occurrence wins (as rowKeys). `fullNameBlocks: false`
 * leaves out the full-name blocks (the matcher does where they cannot help, row-evidence.ts).
 */
export function rowKeySources(row: NormalizedRecord, opts: { fullNameBlocks?: boolean } = {}): KeySource[] {
  // A row has a dozen keys at most: a list is cheaper than hashing every key string into a Map.
  const out: KeySource[] = [];
  const seen: string[] = [];
  const add = (s: string, kind: number, unit: string | null = null, distinct = s) => {
    if (seen.includes(distinct)) return;
    seen.push(distinct);
    out.push({ s, kind, unit });
  };
  for (const h of row.emailHashes) add(`e:${h.slice(0, HASH_KEY_DIGITS)}`, KIND.email);
  for (const h of row.phoneHashes) add(`p:${h.slice(0, HASH_KEY_DIGITS)}`, KIND.phone);
  // (An address without a ZIP is keyed by its city's ZIPs instead: the graph keys only ZIP5 localities.)
  for (const a of row.addressKeys) if (zipKeyed(a)) add(`a:${a!.key}`, KIND.address, a!.unit);
  for (const a of row.cityAddressKeys) add(`a:${a.key}`, KIND.address, a.unit);
  for (const k of rowStreetKeys(row)) add(k.s, k.kind, k.unit);
  const { first, last } = row.name;
  // One-typo emails: the local part alone (a typo in the domain), and the domain with the exact full name,
  // carrying the local part as its unit (a typo in the local part; compared by edit distance, compare.ts).
  for (const e of row.emails) {
    const at = e.matchKey.lastIndexOf('@');
    const local = e.matchKey.slice(0, at);
    if (local.length >= EMAIL_LOCAL_MIN) add(`el:${local}`, KIND.emailLocal);
    // (A local part with a character the staged TSV cannot carry would reach SQL altered: not blocked this way.)
    if (first && last && !/[|\\\t\n\r]/.test(local)) {
      const s = `ed:${e.matchKey.slice(at + 1)}|${first}|${last}`;
      add(s, KIND.emailDomainName, local, `${s}#${local}`);
    }
  }
  // Surname + ZIP5, both ways round so a swapped first/last still blocks.
  // (The locality ZIP of a row without address_1 counts: name + ZIP blocks without a street; so do the ZIPs
  // of the city of a row without any ZIP, for a city of at most CITY_NAME_BLOCK_MAX_ZIPS ZIPs.)
  for (const zip of nameBlockZips(row)) {
    if (last) add(`n:${last}|${zip}`, KIND.nameZip);
    if (first && first.length > 1) add(`n:${first}|${zip}`, KIND.nameZip);
  }
  // dob + either name: the graph holds dob|FIRST and dob|LAST, so a married name or a swap blocks.
  if (row.dob) {
    if (first && first.length > 1) add(`d:${row.dob.iso}|${first}`, KIND.dob);
    if (last) add(`d:${row.dob.iso}|${last}`, KIND.dob);
    // dob + the surname's sound (either name field, for a swap): a typo that keeps the sound, even without a first name.
    for (const n of [last, first]) {
      const sx = n && n.length > 1 ? soundex(n) : null;
      if (sx) add(`dp:${row.dob.iso}|${sx}`, KIND.dobSoundex);
    }
  }
  // Typos and nicknames in both names at once: dob + first initial (of the name and of its canonical
  // given names: BOB -> B, R) + last initial, both ways round. Rows without any strong key (email, phone,
  // street address) also block on the full name (the name and its canonical names), both ways round, for a
  // damaged or missing dob. The graph side skips blocks above COMMON_BLOCK_MAX persons.
  if (first && last) {
    const firsts = first.length > 1 ? [first, ...canonicalsOf(first, row)] : [];
    if (row.dob) {
      const initials = new Set([first[0]!, ...firsts.map((v) => v[0]!)]);
      for (const i of initials) add(`di:${row.dob.iso}|${i}|${last[0]}`, KIND.dobInitials);
      add(`di:${row.dob.iso}|${last[0]}|${first[0]}`, KIND.dobInitials);
    }
    const strong =
      row.emailHashes.length > 0 || row.phoneHashes.length > 0 || row.addressKeys.some(zipKeyed) || row.cityAddressKeys.length > 0;
    if (!strong && opts.fullNameBlocks !== false) {
      for (const f of firsts) add(`fl:${f}|${last}`, KIND.fullName);
      if (first.length > 1) add(`fl:${last}|${first}`, KIND.fullName);
    }
  }
  return out;
}
