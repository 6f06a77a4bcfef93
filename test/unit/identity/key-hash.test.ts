/**
 * Blocking keys' 64-bit reduction (key-hash.ts): bytes 8-15 of the MD5 digest, little-endian, in JS and as DuckDB's
 * md5_number(s) >> 64 in SQL. Fixed values, then a differential run against the DuckDB this project runs on: a
 * DuckDB whose md5_number changed fails here before any index is built with it.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertKeyHash, K64_PROBE, K64_SQL, k64 } from '../../../src/identity/matcher/key-hash.ts';

let db: DuckDBInstance;
const sql = async (q: string) => (await (await db.connect()).runAndReadAll(q)).getRowObjectsJS();
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
});
afterAll(() => db.closeSync());

/** Strings of every length 0..80 over ASCII, Latin-1, CJK and astral (surrogate pair) characters, seeded. */
function samples(n: number): string[] {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const alphabets = ['abcXYZ019:|-_ .@', 'ÀÉÑÜßøçÆ', '日本語テキスト', '😀👍🏽🎉'];
  return Array.from({ length: n }, (_, i) => {
    const chars = [...alphabets[i % 4 === 0 ? 0 : Math.floor(rnd() * 4)]!];
    let s = '';
    for (let len = i % 81; [...s].length < len;) s += chars[Math.floor(rnd() * chars.length)]!;
    return s;
  });
}

describe('k64', () => {
  it('is bytes 8-15 of the MD5 digest, little-endian (fixed values)', () => {
    // md5('abc') = 900150983cd24fb0 d6963f7d28e17f72: the second half read from its last byte down.
    expect(k64('abc')).toBe(0x727fe1287d3f96d6n);
    expect(k64('abc')).toBe(8250560606382298838n);
    expect(k64('n:SMITH|10001')).toBe(7588028988971316733n);
    expect(k64('fl:JOSÉ|NÚÑEZ')).toBe(7910006767614410244n);
    expect(k64('')).toBe(0x7e42f8ec980980e9n);
  });

  it("equals the running DuckDB's K64_SQL on 3,000 generated strings", async () => {
    const strings = samples(3000);
    const rows = await sql(
      `SELECT i, ${K64_SQL('s')}::VARCHAR AS k FROM (SELECT unnest(range(${strings.length})) AS i, unnest(${`[${strings.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ')}]`}) AS s) ORDER BY i`,
    );
    expect(rows).toHaveLength(strings.length);
    const wrong = rows.filter((r) => BigInt(r.k as string) !== k64(strings[Number(r.i)]!));
    expect(wrong).toEqual([]);
  });

  it('K64_SQL keeps NULL as NULL (a NULL key is no block)', async () => {
    const [row] = await sql(`SELECT ${K64_SQL('NULL::VARCHAR')} AS k, ${K64_SQL(`'x' || NULL`)} AS k2`);
    expect(row).toEqual({ k: null, k2: null });
  });

  it('assertKeyHash accepts the probe hash DuckDB makes and rejects another or none', async () => {
    const [row] = await sql(`SELECT ${K64_SQL(`'${K64_PROBE}'`)}::VARCHAR AS k`);
    expect(() => assertKeyHash(BigInt(row!.k as string), 'DuckDB')).not.toThrow();
    expect(() => assertKeyHash(BigInt(row!.k as string) ^ 1n, 'the match index x')).toThrow(
      /the match index x reduces blocking keys otherwise/,
    );
    expect(() => assertKeyHash(null, 'the match index x')).toThrow(/the probe gives nothing/);
  });
});
