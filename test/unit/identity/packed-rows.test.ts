/**
 * The file path's per-row shortlist over packed candidates (packed-rows.ts) against the definitions it replaces:
 * scoring.weight(unpackFeatures(fp), first, last) and point.ts shortlist + the sort by (weight desc, person key).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { streamRawChunks } from '../../../src/graph/duck.ts';
import { validIn } from '../../../src/graph/vectors.ts';
import { unpackFeatures } from '../../../src/identity/matcher/candidates.ts';
import { tfTable } from '../../../src/identity/matcher/estimate.ts';
import type { ScoredCandidate } from '../../../src/identity/matcher/levels.ts';
import { WEIGHTS } from '../../../src/identity/matcher/model.ts';
import {
  createRowShortlister,
  packedColumnsOfChunk,
  packedWeigher,
  type PackedColumns,
} from '../../../src/identity/matcher/packed-rows.ts';
import { PRIOR_SCORING, scoringOf, type MatchParams, type Scoring } from '../../../src/identity/matcher/params.ts';
import { shortlist } from '../../../src/identity/matcher/point.ts';
import { ADDR, DOB, FIRST, ID, LAST } from '../../../src/identity/matcher/types.ts';

/** Packs features as candidates.ts PACK_SQL does. */
const pack = (f: { email?: number; phone?: number; first?: number; last?: number; dob?: number; address?: number; swapped?: boolean }) =>
  (f.email ?? 0) +
  8 * (f.phone ?? 0) +
  64 * (f.first ?? 0) +
  512 * (f.last ?? 0) +
  4096 * (f.dob ?? 0) +
  32768 * (f.address ?? 0) +
  (f.swapped ? 262144 : 0);

const fitted = (tfApplied: boolean): Scoring =>
  scoringOf({
    format: 1,
    release: 'r.duckdb',
    fitted_at: '2026-11-24T00:00:00Z',
    scorer: 'fitted',
    sample: { seed: 1, persons: 1000, random_pairs: 10, list_rows: 10, blocked_pairs: 10 },
    u: WEIGHTS,
    m: WEIGHTS,
    lambda: 0.5,
    em: { iterations: 1, converged: true },
    weights: { ...WEIGHTS, first: [0, 8, 5, 6, 0.5, -7], last: [0, 9, 6, -7.5] },
    tf: {
      first: tfTable(
        [
          { value: 'JOHN', count: 40 },
          { value: 'ZARA', count: 2 },
        ],
        1000,
        2,
      ),
      last: tfTable(
        [
          { value: 'SMITH', count: 100 },
          { value: 'ZED', count: 1 },
        ],
        1000,
        2,
      ),
      u_exact: { first: 0.01, last: 0.0125 },
    },
    tf_applied: tfApplied,
    logistic: { a: 0.3, b: -1, pairs: 10, positives: 5 },
    i_threshold: { probability: 0.93, weight: 12.25, precision: 1, recall: 1, absent: 0 },
  } as MatchParams);

const scorings: [string, Scoring][] = [
  ['prior', PRIOR_SCORING],
  ['fitted', fitted(false)],
  ['fitted with TF', fitted(true)],
];
const names: [string | null, string | null][] = [
  ['JOHN', 'SMITH'],
  ['ZARA', 'ZED'],
  ['SMITH', 'JOHN'],
  [null, 'SMITH'],
  ['JOHN', null],
  [null, null],
  ['', 'ZED'],
];

/** A deterministic stream of numbers in [0, 1). */
function lcg(seed: number) {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('packedWeigher', () => {
  for (const [label, scoring] of scorings) {
    it(`${label}: the weight of every packed value is scoring.weight of its features, for any row names`, () => {
      const weigher = packedWeigher(scoring);
      const rnd = lcg(7);
      for (let i = 0; i < 3000; i++) {
        const fp = Math.floor(rnd() * (1 << 19));
        for (const [first, last] of names) expect(weigher.weight(fp, first, last)).toBe(scoring.weight(unpackFeatures(fp), first, last));
        expect(weigher.features(fp)).toEqual(unpackFeatures(fp));
      }
    });
  }

  it('fixed values: exact names of a common row lose their TF bits, a rare row gains them, crosswise reads the other name', () => {
    const weigher = packedWeigher(fitted(true));
    const exact = pack({ first: FIRST.exact, last: LAST.exact });
    // base 8 + 9 (fitted name weights); JOHN -2 and SMITH -3; ZARA and ZED +2 each (clamped)
    expect(weigher.weight(exact, 'JOHN', 'SMITH')).toBe(12);
    expect(weigher.weight(exact, 'ZARA', 'ZED')).toBe(21);
    expect(weigher.weight(pack({ first: FIRST.exact, last: LAST.exact, swapped: true }), 'SMITH', 'JOHN')).toBe(
      fitted(true).weight(unpackFeatures(pack({ first: FIRST.exact, last: LAST.exact, swapped: true })), 'SMITH', 'JOHN'),
    );
    expect(Object.isFrozen(weigher.features(exact))).toBe(true);
  });
});

/** Packed columns of rows (r, person_key, household_key, hh_ref, fp); a null key is a cleared validity bit. */
function chunkOf(rows: unknown[][]): PackedColumns {
  const col = (c: number) => rows.map((row) => row[c]);
  const longs = (c: number) => BigInt64Array.from(col(c), (v) => (v === null ? 0n : (v as bigint)));
  const valid = (c: number) => {
    const mask = new Uint32Array(Math.ceil(rows.length / 32));
    col(c).forEach((v, i) => {
      if (v !== null) mask[i >>> 5]! |= 1 << (i & 31);
    });
    return mask;
  };
  return {
    count: rows.length,
    r: Int32Array.from(col(0), Number),
    person: longs(1),
    fp: Int32Array.from(col(4), Number),
    household: longs(2),
    householdValid: valid(2),
    ref: longs(3),
    refValid: valid(3),
  };
}

describe('createRowShortlister', () => {
  const byWeight = (a: ScoredCandidate, b: ScoredCandidate) =>
    b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0);
  const fps = [
    pack({ first: FIRST.exact, last: LAST.exact }),
    pack({ first: FIRST.exact, last: LAST.exact, address: ADDR.zip }),
    pack({ last: LAST.exact, address: ADDR.street }),
    pack({ email: ID.agree, first: FIRST.disagree }),
    pack({ phone: ID.agree, last: LAST.fuzzy }),
    pack({ first: FIRST.nickname, last: LAST.exact, address: ADDR.unit }),
    pack({ first: FIRST.disagree, last: LAST.disagree }),
  ];

  for (const [label, scoring] of scorings) {
    it(`${label}: the same candidates in the same order as shortlist() sorted by weight, ties broken by person key`, () => {
      const rows = createRowShortlister(scoring);
      const rnd = lcg(11);
      for (let row = 0; row < 400; row++) {
        const [first, last] = names[row % names.length]!;
        const n = 1 + Math.floor(rnd() * 12);
        const cands = Array.from({ length: n }, (_, i) => ({
          person: BigInt(1000 + Math.floor(rnd() * 50) * 100 + i), // distinct keys, unordered
          household: rnd() < 0.2 ? null : BigInt(Math.floor(rnd() * 5)),
          ref: rnd() < 0.2 ? null : BigInt(Math.floor(rnd() * 5)),
          fp: fps[Math.floor(rnd() * fps.length)]!, // few distinct features: many equal weights
        }));
        rows.start(first, last);
        // The row's candidates over two chunks, as a row can span them in the stream.
        const cut = Math.floor(rnd() * (n + 1));
        for (const part of [cands.slice(0, cut), cands.slice(cut)]) {
          const columns = chunkOf(part.map((c) => [row, c.person, c.household, c.ref, c.fp]));
          part.forEach((_, i) => rows.add(columns, i));
        }
        const expected = shortlist(
          cands.map((c): ScoredCandidate => {
            const features = unpackFeatures(c.fp);
            const weight = scoring.weight(features, first, last);
            return {
              personKey: c.person,
              householdKey: c.household,
              hhRef: c.ref,
              features,
              weight,
              probability: scoring.probability(weight),
            };
          }),
        ).sort(byWeight);
        expect(rows.take()).toEqual(expected);
      }
    });
  }

  it('keeps the top three plus the best address and the best email/phone candidate of those that can be decided, nothing else', () => {
    const rows = createRowShortlister(PRIOR_SCORING);
    rows.start('JOHN', 'SMITH');
    const strong = pack({ first: FIRST.exact, last: LAST.exact, dob: DOB.exact, address: ADDR.zip });
    const columns = chunkOf([
      // The exact name and ZIP alone weigh much but can be no decision's (levels.ts canQualify): never kept.
      [0, 0n, null, null, pack({ first: FIRST.exact, last: LAST.exact, address: ADDR.zip })],
      ...[1n, 2n, 3n, 4n].map((p) => [0, p, null, null, strong]),
      [0, 9n, null, null, pack({ first: FIRST.disagree, address: ADDR.street })],
      [0, 8n, null, null, pack({ first: FIRST.disagree, last: LAST.disagree, email: ID.agree })],
      [0, 7n, null, null, pack({ first: FIRST.disagree, last: LAST.disagree })],
    ]);
    for (let i = 0; i < columns.count; i++) rows.add(columns, i);
    const kept = rows.take().map((c) => c.personKey);
    expect(kept.slice(0, 3)).toEqual([1n, 2n, 3n]); // equal weights: the lower person keys
    expect(new Set(kept.slice(3))).toEqual(new Set([9n, 8n])); // the best street-level address, the best email agreement
    expect(kept).toHaveLength(5);
  });
});

describe('packed columns from raw DuckDB chunks', () => {
  it("read the same values as DuckDB's own conversion: wide and negative keys, NULL households and references, many chunks", async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    const sql = `SELECT i::INTEGER AS r, (i * 1801439850948199 - 4611686018427387904)::BIGINT AS person_key,
      CASE WHEN i % 3 = 0 THEN NULL ELSE -i END::BIGINT AS household_key, CASE WHEN i % 5 = 1 THEN NULL ELSE i * 7 END::BIGINT AS hh_ref,
      (i * 2654435761 % 524288)::INTEGER AS fp FROM range(5000) t(i) ORDER BY i`;
    const cells = (c: PackedColumns) =>
      Array.from({ length: c.count }, (_, i) => [
        c.r[i],
        c.person[i],
        validIn(c.householdValid, i) ? c.household[i] : null,
        validIn(c.refValid, i) ? c.ref[i] : null,
        c.fp[i],
      ]);
    const raw: unknown[][] = [];
    const converted: unknown[][] = [];
    try {
      await streamRawChunks(conn, sql, (chunk) => {
        raw.push(...cells(packedColumnsOfChunk(chunk)));
        const columns = chunk.getColumns(); // DuckDB's own conversion, value by value
        for (let i = 0; i < chunk.rowCount; i++) converted.push(columns.map((c) => c[i]));
      });
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    expect(raw).toHaveLength(5000);
    expect(raw).toEqual(converted);
    expect(raw[3]).toEqual([3, 3n * 1801439850948199n - 4611686018427387904n, null, 21n, Number((3n * 2654435761n) % 524288n)]);
    expect(raw[1]![3]).toBeNull();
  });
});
