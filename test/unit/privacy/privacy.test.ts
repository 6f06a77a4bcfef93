/**
 * Properties of the privacy layer (docs/decisions/015-privacy-threat-model.md), with a fixed secret so
 * every expected value is a constant.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../../src/graph/person-fields.ts';
import type { FilterCondition, FilterGroup } from '../../../src/graph/filters/index.ts';
import type { MembershipQuery } from '../../../src/graph/membership/types.ts';
import {
  createPrivacyWithSecret,
  joinParts,
  layerNoise,
  lookupParts,
  maskedLookupSql,
  namedQuestion,
  noiseBound,
  questionOf,
  threshold,
} from '../../../src/modules/privacy/index.ts';

const SECRET = 'unit-secret';
const privacy = createPrivacyWithSecret({ secret: SECRET, floor: 50, lookupK: 10 });
const group = (filters: FilterCondition[], combinator: 'AND' | 'OR' = 'AND', id = 'g'): FilterGroup => ({ id, filters, combinator });
const filters = (...groups: FilterGroup[]): MembershipQuery => ({ kind: 'filters', groups });
const eq = (field: string, value: string | number): FilterCondition => ({ field, op: '=', value });
const IL = filters(group([eq('state', 'IL')]));
const shown = (q: MembershipQuery, n: number) => privacy.protectCount({ question: questionOf(q), trueCount: n }).count;

describe('privacy layer: sticky noise', () => {
  it('derives layer noise and thresholds from the secret and the name only (fixed values)', () => {
    expect(layerNoise(SECRET, 'c:a')).toBeCloseTo(0.30919883312660046, 12);
    expect(layerNoise(SECRET, 'c:b')).toBeCloseTo(-2.8697506987154204, 12);
    expect(threshold(SECRET, 'q', 50)).toBe(48);
    expect(threshold(SECRET, 'r', 50)).toBe(46);
    expect(shown(IL, 1000)).toBe(997);
    expect(shown(IL, 123_456)).toBe(123_453);
    expect(layerNoise('another-secret', 'c:a')).not.toBeCloseTo(layerNoise(SECRET, 'c:a'), 6);
  });

  it('same question, same answer: in another instance, and however the question is phrased', () => {
    const other = createPrivacyWithSecret({ secret: SECRET, floor: 50, lookupK: 10 });
    expect(other.protectCount({ question: questionOf(IL), trueCount: 1000 }).count).toBe(997);
    const a = filters(group([eq('state', 'IL'), { field: 'age', op: 'IN', value: [30, 31, 32] }]));
    const b = filters(group([{ field: 'age', op: 'IN', value: [32, 30, 31, 30] }, eq('state', 'IL'), eq('state', 'IL')], 'OR', 'other-id'));
    expect(questionOf(a).key).toBe(questionOf(b).key);
    expect(shown(a, 5000)).toBe(shown(b, 5000));
    // One uncapped filter segment asks the same question as its filters.
    const seg: MembershipQuery = {
      kind: 'composition',
      composition: {
        include: [{ kind: 'filter', segmentId: 'seg_1', groups: [group([eq('state', 'IL')])], recordLimit: null, subsetSeed: 's' }],
        exclude: [],
        setLogic: 'union',
      },
    };
    expect(questionOf(seg).key).toBe(questionOf(IL).key);
    // A different question gets different noise.
    expect(shown(filters(group([eq('state', 'PA')])), 1000)).not.toBe(997);
  });

  it('noise is centred, with the layer sd per layer (4000 one-condition questions: 2 layers)', () => {
    let sum = 0;
    let sq = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const d = shown(filters(group([eq('zip5', String(i))])), 10_000)! - 10_000;
      sum += d;
      sq += d * d;
    }
    const mean = sum / n;
    expect(Math.abs(mean)).toBeLessThan(0.3);
    expect(Math.sqrt(sq / n - mean * mean)).toBeCloseTo(4.23, 1);
    // Bounded: each layer is clamped at 3 sd.
    expect(noiseBound(2)).toBe(18);
  });
});

describe('privacy layer: floor and threshold', () => {
  it('never refuses an honest count and never shows one below the floor; suppresses below the threshold band', () => {
    let shownBelowFloor = 0;
    for (let i = 0; i < 500; i++) {
      const q = filters(group([eq('zip5', `z${i}`)]));
      for (const n of [50, 51, 55, 60, 80]) {
        const c = shown(q, n);
        expect(c).not.toBeNull();
        expect(c!).toBeGreaterThanOrEqual(50);
      }
      for (const n of [0, 1, 10, 41]) expect(shown(q, n)).toBeNull();
      if (shown(q, 45) !== null) shownBelowFloor += 1;
    }
    // Between the band and the floor it depends on the question's own threshold: sometimes, not always.
    expect(shownBelowFloor).toBeGreaterThan(50);
    expect(shownBelowFloor).toBeLessThan(450);
  });

  it('protectTotal is 422 AGGREGATION_FLOOR_NOT_MET when suppressed; shownCount gives the reason', () => {
    expect(() => privacy.protectTotal({ question: questionOf(IL), trueCount: 3 })).toThrow(
      expect.objectContaining({ code: 'AGGREGATION_FLOOR_NOT_MET' }),
    );
    expect(privacy.shownCount({ question: questionOf(IL), trueCount: 3 })).toEqual({
      record_count: null,
      record_count_reason: 'below_privacy_floor',
    });
    expect(privacy.shownCount({ question: questionOf(IL), trueCount: 1000 })).toEqual({ record_count: 997, record_count_reason: null });
    // A facet (matched) of the same question gets a layer of its own.
    expect(privacy.protectCount({ question: questionOf(IL), trueCount: 1000, facet: 'matched' }).count).not.toBe(997);
    // A named question (a quote) is protected the same way.
    const quote = privacy.protectCount({ question: namedQuestion('quote|aud_1|billing_count', ['aud_1@v3']), trueCount: 1234 });
    expect(quote.count).toBe(
      privacy.protectCount({ question: namedQuestion('quote|aud_1|billing_count', ['aud_1@v3']), trueCount: 1234 }).count,
    );
  });
});

describe('privacy layer: groups without complement', () => {
  it('noises each group on its own and reports suppressed ones only by number', () => {
    const r = privacy.protectGroups({
      question: questionOf(IL),
      dimension: 'gender',
      buckets: [
        { group_value: 'F', count: 600 },
        { group_value: 'M', count: 580 },
        { group_value: null, count: 7 },
      ],
    });
    expect(r).toEqual({
      groups: [
        { group_value: 'F', count: 596 },
        { group_value: 'M', count: 582 },
      ],
      suppressed_groups: 1,
    });
  });

  it('total minus the shown groups does not give the suppressed group (1000 questions)', () => {
    let exact = 0;
    let sq = 0;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      const q = questionOf(filters(group([eq('zip5', `c${i}`)])));
      const small = 1 + (i % 40);
      const buckets = [
        { group_value: 'A', count: 300 + i },
        { group_value: 'B', count: 200 },
        { group_value: 'C', count: small },
      ];
      const total = privacy.protectTotal({ question: q, trueCount: 500 + i + small });
      const g = privacy.protectGroups({ question: q, dimension: 'd', buckets });
      expect(g.suppressed_groups).toBe(1);
      const inferred = total - g.groups.reduce((s, x) => s + x.count, 0);
      if (inferred === small) exact += 1;
      sq += (inferred - small) ** 2;
    }
    // The complement is off by three independent noises (sd ~ 6): rarely exact, never reliably.
    expect(exact / n).toBeLessThan(0.1);
    expect(Math.sqrt(sq / n)).toBeGreaterThan(5);
  });

  it('top-N with `other`: the rest is one protected bucket', () => {
    const buckets = Array.from({ length: 14 }, (_, i) => ({ group_value: `S${i}`, count: 1000 - i * 60 }));
    const r = privacy.protectGroups({ question: questionOf(IL), dimension: 'state', buckets, top: 10 });
    expect(r.groups).toHaveLength(11);
    const other = r.groups.find((g) => g.group_value === 'other')!;
    expect(Math.abs(other.count - (400 + 340 + 280 + 220))).toBeLessThanOrEqual(30);
    expect(r.suppressed_groups).toBe(0);
  });
});

describe('privacy layer: lookup', () => {
  it('splits raw filters into OR parts and joins eligible parts back', () => {
    const q = filters(
      group([eq('zip5', '60601'), eq('age', 97)]),
      group([eq('state', 'IL')], 'OR', 'g2'),
      group([eq('gender', 'F')], 'AND', 'g3'),
    );
    const parts = lookupParts(q);
    expect(parts).toHaveLength(2);
    expect(joinParts([parts[1]!])).toEqual({
      kind: 'filters',
      groups: [group([eq('state', 'IL')], 'OR', 'g2'), group([eq('gender', 'F')], 'AND', 'g3')],
    });
    expect(lookupParts(IL)).toEqual([IL]);
  });

  it('returns generalized rows only, each combination shared by at least k persons', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      // 200 persons: 150 share (age 30-39, ZIP 606xx, F); 50 are spread thin; one is unique.
      await conn.run(`CREATE TABLE persons AS SELECT i::BIGINT AS person_key,
        CASE WHEN i < 150 THEN 30 + (i % 10) ELSE 20 + (i % 60) END AS age,
        CASE WHEN i < 150 THEN '6060' || (i % 10)::VARCHAR ELSE (10000 + i * 37)::VARCHAR END AS zip5,
        CASE WHEN i < 150 THEN 'F' ELSE (CASE WHEN i % 2 = 0 THEN 'M' ELSE 'F' END) END AS gender,
        (150000 + i * 1000)::INTEGER AS home_value
        FROM range(200) t(i)`);
      const fields = ['age', 'zip5', 'gender', 'home_value'].map((n) => CATALOG_FIELDS.find((f) => f.name === n)!);
      const sql = maskedLookupSql({ personsTable: 'persons', totalWhere: 'TRUE', eligibleWhere: 'TRUE', fields, limit: 25, k: 10 });
      const rows = (await conn.runAndReadAll(sql)).getRowObjectsJS();
      expect(Number(rows[0]!.__total)).toBe(200);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r.c0).toMatch(/^\d0-\d9$/);
        expect(r.c1).toMatch(/^\d{3}xx$/);
        expect(r.c3).toMatch(/^\d00000-\d99999$/);
      }
      // Every returned combination is shared by >= 10 of the eligible persons.
      const combos = (
        await conn.runAndReadAll(`SELECT c0, c1, c2, c3, count(*) AS n FROM (${sql.replace(/LIMIT \d+/, 'LIMIT 1000000')}) GROUP BY ALL`)
      ).getRowObjectsJS();
      const shared = (
        await conn.runAndReadAll(
          `SELECT count(*) AS n FROM persons p WHERE age BETWEEN 30 AND 39 AND zip5 LIKE '606%' AND gender = 'F' AND home_value < 300000`,
        )
      ).getRowObjectsJS();
      expect(Number(shared[0]!.n)).toBeGreaterThanOrEqual(10);
      for (const c of combos) expect(Number(c.n)).toBeGreaterThanOrEqual(10);
      // No eligible part: the total only, no row.
      const none = (
        await conn.runAndReadAll(
          maskedLookupSql({ personsTable: 'persons', totalWhere: 'TRUE', eligibleWhere: 'FALSE', fields, limit: 25, k: 10 }),
        )
      ).getRowObjectsJS();
      expect(none).toHaveLength(1);
      expect(none[0]!.__row).toBeNull();
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
