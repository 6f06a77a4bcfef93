/**
 * The term-frequency adjustment in the fitted scorer (params.ts) and the split dob levels (compare.ts,
 * both twins), on fixed inputs with values worked out by hand. Issue #15, docs/decisions/045.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { compareDob, dobSql } from '../../../src/identity/matcher/compare.ts';
import { tfTable } from '../../../src/identity/matcher/estimate.ts';
import { individualType } from '../../../src/identity/matcher/levels.ts';
import { matchWeight, probability, WEIGHTS } from '../../../src/identity/matcher/model.ts';
import {
  PRIOR_SCORING,
  readMatchParams,
  scoringOf,
  tfBits,
  tfLookup,
  upgradeDobWeights,
  writeMatchParams,
  type MatchParams,
} from '../../../src/identity/matcher/params.ts';
import { createStageWriter, stageRows } from '../../../src/identity/matcher/stage.ts';
import { stageLines, variantsCache } from '../../../src/identity/matcher/stage-lines.ts';
import { ADDR, DOB, dobNear, FIRST, ID, LAST, type Features } from '../../../src/identity/matcher/types.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/record.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-tf-dob-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const f = (over: Partial<Features>): Features => ({ email: 0, phone: 0, first: 0, last: 0, swapped: false, dob: 0, address: 0, ...over });

describe('dob levels', () => {
  const graph = '1980-03-04';
  // [input, level]: the first level that applies, in the order exact, digit, swap, yearMonth.
  const cases: [string | null, number][] = [
    ['1980-03-04', DOB.exact],
    ['1980-03-07', DOB.digit], // day units digit
    ['1980-03-14', DOB.digit], // day tens digit (also same year and month: digit comes first)
    ['1980-08-04', DOB.digit], // month digit
    ['1981-03-04', DOB.digit], // year units digit
    ['1970-03-04', DOB.digit], // year ten off = one digit
    ['1880-03-04', DOB.digit], // one digit, however unlikely
    ['1979-03-04', DOB.digit], // year one off, two digits: the old year slip rule
    ['1980-04-03', DOB.swap],
    ['1980-03-27', DOB.yearMonth],
    ['1980-03-15', DOB.yearMonth],
    ['1980-05-06', DOB.disagree], // two digits off
    ['1982-03-05', DOB.disagree],
    ['1975-01-01', DOB.disagree],
    ['1981-04-03', DOB.disagree], // swapped and a year off
    [null, DOB.missing],
  ];

  it('compareDob: one digit off, day-month swapped, same year and month', () => {
    for (const [input, level] of cases) expect(compareDob(input, graph), String(input)).toBe(level);
    // a swap whose halves differ in one digit each is two digits off: a swap
    expect(compareDob('1980-11-01', '1980-01-11')).toBe(DOB.swap);
    // the year one off across a decade and a century
    expect(compareDob('1989-12-31', '1990-12-31')).toBe(DOB.digit);
    expect(compareDob('1999-06-15', '2000-06-15')).toBe(DOB.digit);
    expect(compareDob('1995-06-15', '2005-06-15')).toBe(DOB.digit);
    expect(compareDob(null, graph)).toBe(DOB.missing);
    expect(compareDob(graph, null)).toBe(DOB.missing);
  });

  it('the SQL twin gives the same level on the same pairs', async () => {
    const pairs: [string | null, string][] = [
      ...cases.map(([i]) => [i, graph] as [string | null, string]),
      ['1980-11-01', '1980-01-11'],
      ['1989-12-31', '1990-12-31'],
      ['1999-06-15', '2000-06-15'],
      ['1995-06-15', '2005-06-15'],
      ['2000-02-29', '2000-02-28'],
      ['1901-10-01', '1901-01-10'],
    ];
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const values = pairs.map(([i, g], n) => `(${n}, ${i === null ? 'NULL' : `'${i}'`}::DATE, '${g}'::DATE)`).join(', ');
      const rows = (
        await conn.runAndReadAll(`SELECT n, ${dobSql('i', 'g')} AS l FROM (VALUES ${values}) t(n, i, g) ORDER BY n`)
      ).getRowObjectsJS();
      expect(rows.map((r) => Number(r.l))).toEqual(pairs.map(([i, g]) => compareDob(i, g)));
      expect(rows.slice(-2).map((r) => Number(r.l))).toEqual([DOB.digit, DOB.swap]);
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });

  it('each near level counts where "partial" counted: exact name + near dob + ZIP is name_partial_dob_zip', () => {
    expect([DOB.digit, DOB.swap, DOB.yearMonth].every(dobNear)).toBe(true);
    expect([DOB.missing, DOB.exact, DOB.disagree].some(dobNear)).toBe(false);
    for (const dob of [DOB.digit, DOB.swap, DOB.yearMonth]) {
      const features = f({ first: FIRST.exact, last: LAST.exact, dob, address: ADDR.zip });
      // prior weights: 4.5 + 3.5 + 3 + 0.5 = 11.5 (each near level keeps the former partial weight)
      expect(matchWeight(features)).toBe(11.5);
      expect(individualType({ features, probability: probability(11.5) })).toBe('name_partial_dob_zip');
    }
    expect(
      individualType({ features: f({ first: FIRST.exact, last: LAST.exact, dob: DOB.disagree, address: ADDR.zip }), probability: 1 }),
    ).toBeNull();
  });
});

describe('params files written before the dob split', () => {
  it('give each near level the old partial weight', () => {
    const w = { ...WEIGHTS, dob: [0, 14, 6.02, -11.91] };
    expect(upgradeDobWeights(w).dob).toEqual([0, 14, 6.02, 6.02, 6.02, -11.91]);
    expect(upgradeDobWeights(WEIGHTS)).toBe(WEIGHTS); // already split: unchanged
  });
});

// A TF table over 1,000 persons: SMITH 10%, JONES 5%, ZED 0.1% (the least common listed).
const lastTf = tfTable(
  [
    { value: 'SMITH', count: 100 },
    { value: 'JONES', count: 50 },
    { value: 'ZED', count: 1 },
  ],
  1000,
  3,
);
const firstTf = tfTable(
  [
    { value: 'JOHN', count: 40 },
    { value: 'MARY', count: 25 },
    { value: 'ZARA', count: 2 },
  ],
  1000,
  3,
);

function params(over: Partial<MatchParams> = {}): MatchParams {
  return {
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
    tf: { first: firstTf, last: lastTf, u_exact: { first: 0.01, last: 0.0125 } },
    tf_applied: true,
    logistic: { a: 0.3, b: -1, pairs: 10, positives: 5 },
    i_threshold: { probability: 0.93, weight: 12.25, precision: 1, recall: 1, absent: 0 },
    ...over,
  };
}

describe('term-frequency adjustment in the fitted scorer', () => {
  const tfLast = tfLookup(lastTf, 0.0125);
  const tfFirst = tfLookup(firstTf, 0.01);

  it('looks the adjustment of a value up: log2(u_exact / share), clamped to [-6, +2]', () => {
    expect(tfLast('SMITH')).toBe(-3); // log2(0.0125 / 0.1)
    expect(tfLast('JONES')).toBe(-2); // log2(0.0125 / 0.05)
    expect(tfLast('ZED')).toBe(2); // log2(12.5) = 3.64 -> +2
    expect(tfLast('NOBODY')).toBe(2); // unlisted = the least common listed share
    expect(tfFirst('JOHN')).toBe(-2); // log2(0.01 / 0.04)
    expect(tfFirst('MARY')).toBe(-1.32); // log2(0.4)
    expect(tfFirst('ZARA')).toBe(2); // log2(5) = 2.32 -> +2
  });

  it('adds to exact agreements only, with the value that agreed (crosswise: the other row name)', () => {
    const exact = f({ first: FIRST.exact, last: LAST.exact });
    expect(tfBits(exact, 'JOHN', 'SMITH', tfFirst, tfLast)).toBe(-5);
    expect(tfBits(exact, 'ZARA', 'ZED', tfFirst, tfLast)).toBe(4);
    expect(tfBits(f({ first: FIRST.nickname, last: LAST.exact }), 'JOHNNY', 'JONES', tfFirst, tfLast)).toBe(-2);
    expect(tfBits(f({ first: FIRST.exact, last: LAST.fuzzy }), 'MARY', 'SMYTH', tfFirst, tfLast)).toBe(-1.32);
    expect(tfBits(f({ first: FIRST.fuzzy, last: LAST.disagree }), 'JON', 'SMITH', tfFirst, tfLast)).toBe(0);
    // row "SMITH JOHN" matched graph JOHN SMITH crosswise: first agreed on the row's last name, last on its first
    expect(tfBits(f({ first: FIRST.exact, last: LAST.exact, swapped: true }), 'SMITH', 'JOHN', tfFirst, tfLast)).toBe(-5);
    expect(tfBits(exact, null, null, tfFirst, tfLast)).toBe(0);
  });

  it('the fitted scorer with tf_applied: weight + TF bits, confidence the logistic of that weight', () => {
    const s = scoringOf(params());
    const features = f({ first: FIRST.exact, last: LAST.exact, dob: DOB.exact, address: ADDR.zip, email: ID.disagree });
    const base = matchWeight(features, params().weights as typeof WEIGHTS); // 8 + 9 + 9 + 0.5 - 2 = 24.5
    expect(base).toBe(24.5);
    expect(s.weight(features, 'JOHN', 'SMITH')).toBe(19.5);
    expect(s.weight(features, 'ZARA', 'ZED')).toBe(28.5);
    expect(s.probability(19.5)).toBe(probability(19.5, 0.3, -1));
    expect(s.iThreshold).toBe(0.93);
  });

  it('without tf_applied (a file fitted before TF was applied), "prior" or no file: names do not count', () => {
    const features = f({ first: FIRST.exact, last: LAST.exact, dob: DOB.exact });
    expect(scoringOf(params({ tf_applied: undefined })).weight(features, 'JOHN', 'SMITH')).toBe(26);
    expect(scoringOf(params({ tf_applied: false })).weight(features, 'ZARA', 'ZED')).toBe(26);
    expect(scoringOf(params({ scorer: 'prior' }))).toBe(PRIOR_SCORING);
    expect(scoringOf(null)).toBe(PRIOR_SCORING);
    expect(PRIOR_SCORING.weight(features, 'JOHN', 'SMITH')).toBe(17); // 4.5 + 3.5 + 9
  });

  it('name + ZIP alone never reaches I, however rare the name', () => {
    const s = scoringOf(params());
    const features = f({ first: FIRST.exact, last: LAST.exact, address: ADDR.zip });
    expect(individualType({ features, probability: s.probability(s.weight(features, 'ZARA', 'ZED')) }, s.iThreshold)).toBeNull();
  });

  it('an old params file (four dob weights, no tf_applied) loads and scores as recorded', () => {
    const file = path.join(dir, 'old.match-params.json');
    const { tf_applied: _, ...old } = params();
    writeMatchParams(file, { ...old, weights: { ...old.weights, dob: [0, 14, 6, -12] } } as MatchParams);
    const p = readMatchParams(file)!;
    expect(p.weights.dob).toEqual([0, 14, 6, 6, 6, -12, 5, 2]); // the split, then the partial-dob levels at their priors
    expect(p.tf_applied).toBeUndefined();
    expect(scoringOf(p).weight(f({ first: FIRST.exact, last: LAST.exact, dob: DOB.swap }), 'JOHN', 'SMITH')).toBe(8 + 9 + 6);
  });
});

describe("staged names (the file path's TF values)", () => {
  const recs = [
    { first_name: 'John', last_name: 'Smith', email: 'a@b.com' },
    { last_name: 'Zed', zip: '02134' },
    { first_name: 'Mary', last_name: 'Smith', phone: '6175550123' },
  ];
  const rows = recs.map((r, i) => normalizeMatchInput(r, { position: i + 1 }));

  it("are the rows' normalized names, through files and inline VALUES alike", () => {
    const writer = createStageWriter(path.join(dir, 'stage'));
    writer.addLines(stageLines(rows.slice(0, 2), 0, null, variantsCache()));
    writer.addLines(stageLines(rows.slice(2), 2, null, variantsCache()));
    const file = writer.close();
    const inline = stageRows(rows);
    try {
      for (const s of [file, inline]) {
        expect([0, 1, 2, 3].map((r) => [s.firstName(r), s.lastName(r)])).toEqual([
          ['JOHN', 'SMITH'],
          [null, 'ZED'],
          ['MARY', 'SMITH'],
          [null, null],
        ]);
      }
    } finally {
      file.cleanup();
      inline.cleanup();
    }
  });
});
