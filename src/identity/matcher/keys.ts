/**
 * Blocking keys. Every block (email, phone, address, surname+ZIP5, dob+name) is a namespaced
 * string ("e:<sha256>", "a:123|MAIN|02134", ...) reduced to 64 bits: the first 16 hex digits of its
 * SHA-256, as UBIGINT. One integer key column lets all blocks live in one index table joined with
 * one equi-join (each block is still its own key space, so it is a UNION of blocks, never an OR),
 * and 8-byte keys keep hash tables and the ART index small. A 64-bit collision (~1e-5 chance over
 * the whole graph) only adds a candidate, which scoring then rejects.
 */
import { hash } from 'node:crypto';
import type { NormalizedRecord } from '../normalize/record.ts';

export const KIND = { email: 1, phone: 2, address: 3, addressHistory: 4, nameZip: 5, dob: 6 } as const;

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
  const { first, last } = row.name;
  // Surname + ZIP5, both ways round so a swapped first/last still blocks.
  for (const a of row.addresses) {
    if (!a.zip5) continue;
    if (last) add(`n:${last}|${a.zip5}`, KIND.nameZip);
    if (first && first.length > 1) add(`n:${first}|${a.zip5}`, KIND.nameZip);
  }
  // dob + either name: the graph holds dob|FIRST and dob|LAST, so a married name or a swap blocks.
  if (row.dob) {
    if (first && first.length > 1) add(`d:${row.dob.iso}|${first}`, KIND.dob);
    if (last) add(`d:${row.dob.iso}|${last}`, KIND.dob);
  }
  return [...out.values()];
}
