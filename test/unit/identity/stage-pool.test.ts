/** The staging pool formats exactly the lines the in-process writer would, in batch order, with or without worker threads. */
import { afterEach, describe, expect, it } from 'vitest';
import { createStagePool, type StagePool } from '../../../src/identity/matcher/stage-pool.ts';
import { stageLines, variantsCache } from '../../../src/identity/matcher/stage-lines.ts';
import { KIND } from '../../../src/identity/matcher/keys.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/index.ts';

const records = Array.from({ length: 300 }, (_, i) => ({
  email: i % 7 === 0 ? 'not an email' : `Person.${i}+tag@Gmail.com`,
  first_name: ['Bob', 'Robert', 'Zoë', ''][i % 4],
  last_name: `O'Name${i % 13}`,
  address_1: i % 3 === 0 ? `${100 + i} N Main Street Apt ${i % 5}` : undefined,
  zip: i % 3 === 0 ? '02134' : undefined,
  dob: i % 5 === 0 ? '1980-02-29' : undefined,
  phone: i % 4 === 0 ? '(617) 555-01' + String(i % 100).padStart(2, '0') : undefined,
}));
const today = new Date('2026-01-15T00:00:00Z');
const direct = records.map((_, i) => (i === 5 ? 12345n : null));
/** The lines of a staged TSV part (each ends in a newline). */
const lines = (bytes: Uint8Array) => new TextDecoder().decode(bytes).split('\n').slice(0, -1);
const expected = stageLines(
  records.map((r, i) => normalizeMatchInput(r, { position: i + 1, today })),
  0,
  direct,
  variantsCache(),
);

let pool: StagePool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('staging pool', () => {
  for (const threads of [0, 2]) {
    it(`threads=${threads}: same rows, keys, ZIPs and direct count as stageLines, batches in order`, async () => {
      pool = createStagePool(threads);
      const parts = await Promise.all(
        [0, 100, 200].map((base) => pool!.stage(records.slice(base, base + 100), base, direct.slice(base, base + 100), today)),
      );
      expect(parts.flatMap((p) => lines(p.rows))).toEqual(lines(expected.rows));
      expect(parts.flatMap((p) => lines(p.keys))).toEqual(lines(expected.keys));
      expect(parts.flatMap((p) => lines(p.streets))).toEqual(lines(expected.streets));
      expect(lines(expected.streets).length).toBe(expected.streetCount);
      expect(lines(expected.streets).every((l) => l.split('\t')[3] === String(KIND.street))).toBe(true); // street keys only, kept apart
      expect(lines(expected.keys).some((l) => l.split('\t')[3] === String(KIND.street))).toBe(false);
      expect(expected.streetCount).toBe(100); // one street key per row with a street address
      expect(parts.map((p) => p.names).join('\t')).toBe(expected.names);
      expect(parts.map((p) => [p.rowCount, p.keyCount])).toEqual(parts.map((p) => [100, lines(p.keys).length]));
      expect(parts.flatMap((p) => [...p.zips])).toEqual([...expected.zips]);
      expect(parts.reduce((n, p) => n + p.directCount, 0)).toBe(1);
      expect(lines(expected.rows)[5]).toMatch(/\t12345\tR163\tO550\t$/); // direct person key, the names' Soundex, no house
      expect(lines(expected.rows)[3]).toMatch(/\t02134:103$/); // "<zip5>:<house>" of 103 N Main Street
      expect(expected.names.split('\t').slice(0, 4)).toEqual(['BOB', 'ONAME0', 'ROBERT', 'ONAME1']); // staged names, two a row
      expect(expected.keyCount).toBeGreaterThan(300);
    });
  }
});
