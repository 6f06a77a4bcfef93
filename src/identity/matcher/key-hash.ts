/**
 * The 64-bit reduction of blocking keys (keys.ts): bytes 8-15 of the key's MD5 digest read little-endian, which
 * is what DuckDB's `md5_number(s) >> 64` gives (its digest as an unsigned 128-bit integer). The file path reduces
 * millions of staged key strings in SQL: this costs a quarter of what the first 16 hex digits of SHA-256 did
 * (sha256() builds a 64-character hex string that is then cut and parsed again; ~4 CPU-s a million rows).
 *
 * MD5's weakness (chosen collisions) does not matter here: keys are not secret (a name key is found by trying
 * names, with any hash) and a collision only adds a candidate that scoring rejects; what matters is that
 * unrelated keys collide no more often than random 64-bit values, which MD5 gives. (DuckDB's own hash() is
 * cheaper still, but it is not that: on 6.3M keys of a file against the 120M of a 10M-person index it made
 * 12 spurious block hits, and a spurious hit on an email block reads as email agreement.)
 *
 * An index records the reduction of K64_PROBE (m_meta.k64_probe), and a matcher refuses an index whose keys it
 * cannot make (assertKeyHash): a DuckDB that changed md5_number would otherwise match nothing, silently.
 */
import { hash } from 'node:crypto';

/** A fixed string whose reduction an index records when it is built (m_meta.k64_probe). */
export const K64_PROBE = 'ads:k64-probe:JOSÉ|NÚÑEZ|0123456789';

export function k64(s: string): bigint {
  return hash('md5', s, 'buffer').readBigUInt64LE(8);
}

/**
 * The same reduction in SQL, over a VARCHAR expression (NULL stays NULL).
 */
export const K64_SQL = (expr: string) => `(md5_number(${expr}) >> 64)::UBIGINT`;

/**
 * Throws unless `value`, the reduction of K64_PROBE made by `source` (a DuckDB about to build an index, or an
 * index's m_meta.k64_probe), is k64(K64_PROBE): keys made otherwise would never meet the matcher's.
 */
export function assertKeyHash(value: bigint | null | undefined, source: string): void {
  if (value !== k64(K64_PROBE)) {
    throw new Error(
      `${source} reduces blocking keys otherwise than the matcher (key-hash.ts; a DuckDB of another version?): ` +
        `the probe gives ${value ?? 'nothing'}, expected ${k64(K64_PROBE)}; rebuild the match index with this version`,
    );
  }
}
