/**
 * Blocking keys. Every block (email, phone, address, surname+ZIP5, dob+name) is a namespaced
 * string ("e:<sha256>", "a:123|MAIN|02134", ...) reduced to 64 bits: the first 16 hex digits of its
 * SHA-256, as UBIGINT. One integer key column lets all blocks live in one index table joined with
 * one equi-join (each block is still its own key space, so it is a UNION of blocks, never an OR),
 * and 8-byte keys keep hash tables and the ART index small. A 64-bit collision (~1e-5 chance over
 * the whole graph) only adds a candidate, which scoring then rejects.
 */
import { hash } from 'node:crypto';
import { recordZips, type NormalizedRecord } from '../normalize/record.ts';

export const KIND = { email: 1, phone: 2, address: 3, addressHistory: 4, nameZip: 5, dob: 6, street: 7, dobInitials: 8, fullName: 9 } as const;

/**
 * Blocks of the kinds that can grow with common values (full name, dob + initials) are left out of
 * the index when more graph persons than this share them: a block that common tells nothing and
 * would only flood the row with candidates (the "skip common blocks" rule of record linkers).
 */
export const COMMON_BLOCK_MAX = 64;

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

export function k64(s: string): bigint {
  return BigInt(`0x${hash('sha256', s, 'hex').slice(0, 16)}`);
}

/** The same reduction in SQL. */
export const K64_SQL = (expr: string) => `('0x' || left(sha256(${expr}), 16))::UBIGINT`;

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

/** Blocking keys of one normalized row. */
export function rowKeys(row: NormalizedRecord): StagedKey[] {
  return rowKeySources(row).map(({ s, kind, unit }) => ({ k: k64(s), kind, unit }));
}

/** The namespaced key strings of one row, distinct, first occurrence wins (as rowKeys). */
export function rowKeySources(row: NormalizedRecord): KeySource[] {
  const out = new Map<string, KeySource>();
  const add = (s: string, kind: number, unit: string | null = null) => {
    if (!out.has(s)) out.set(s, { s, kind, unit });
  };
  for (const h of row.emailHashes) add(`e:${h}`, KIND.email);
  for (const h of row.phoneHashes) add(`p:${h}`, KIND.phone);
  for (const a of row.addressKeys) if (a) add(`a:${a.key}`, KIND.address, a.unit);
  // Street in ZIP (spatial level only, never a candidate): the unit carries the house number.
  for (const a of row.addressKeys) {
    const st = a ? streetOfKey(a.key) : null;
    if (st) add(st.street, KIND.street, String(st.house));
  }
  const { first, last } = row.name;
  // Surname + ZIP5, both ways round so a swapped first/last still blocks.
  // (The locality ZIP of a row without address_1 counts: name + ZIP blocks without a street.)
  for (const zip of recordZips(row)) {
    if (last) add(`n:${last}|${zip}`, KIND.nameZip);
    if (first && first.length > 1) add(`n:${first}|${zip}`, KIND.nameZip);
  }
  // dob + either name: the graph holds dob|FIRST and dob|LAST, so a married name or a swap blocks.
  if (row.dob) {
    if (first && first.length > 1) add(`d:${row.dob.iso}|${first}`, KIND.dob);
    if (last) add(`d:${row.dob.iso}|${last}`, KIND.dob);
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
    const strong = row.emailHashes.length > 0 || row.phoneHashes.length > 0 || row.addressKeys.some((a) => a !== null);
    if (!strong) {
      for (const f of firsts) add(`fl:${f}|${last}`, KIND.fullName);
      if (first.length > 1) add(`fl:${last}|${first}`, KIND.fullName);
    }
  }
  return [...out.values()];
}
