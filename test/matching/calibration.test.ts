/**
 * Calibration of match_confidence (model.ts LOGIT_A / LOGIT_B, fitted by fit.ts fitPlatt):
 * the fitting and measuring functions on synthetic data, and the engine's reported I + D
 * confidence on a labelled set drawn from the small test graph (of rows scored p, about p are right).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibration, fitPlatt, reportableCandidate } from '../../src/identity/matcher/fit.ts';
import { createMatcher, type MatchResult } from '../../src/identity/matcher/index.ts';
import { generateLabelledSet, rng, type LabelledRow } from '../../src/identity/matcher/labelled-set.ts';
import { FIRST, ID, LAST, type Features } from '../../src/identity/matcher/types.ts';
import { normalizeMatchInput } from '../../src/identity/normalize/record.ts';
import { testGraph, TEST_GRAPH_DIR, type TestGraph } from './helpers.ts';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

describe('fitPlatt', () => {
  it('recovers a known logistic from synthetic data', () => {
    const r = rng(42);
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < 20000; i++) {
      const x = r() * 16;
      xs.push(x);
      ys.push(r() < sigmoid(1.5 * x - 12) ? 1 : 0);
    }
    const { a, b } = fitPlatt(xs, ys);
    expect(a).toBeCloseTo(1.5, 0);
    expect(Math.abs(b / a - -8)).toBeLessThan(0.15); // the p = 0.5 point
    const c = calibration(
      xs.map((x) => sigmoid(a * x + b)),
      ys,
      [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001],
    );
    expect(c.ece).toBeLessThan(0.02);
  });

  it('stays finite on separable data (Platt targets), with p between the classes', () => {
    const xs = [1, 2, 3, 4, 5, 10, 11, 12, 13, 14];
    const ys = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
    const { a, b } = fitPlatt(xs, ys);
    expect(Number.isFinite(a) && Number.isFinite(b)).toBe(true);
    expect(a).toBeGreaterThan(0);
    expect(sigmoid(a * 14 + b)).toBeGreaterThan(0.8);
    expect(sigmoid(a * 14 + b)).toBeLessThan(0.99999);
    expect(sigmoid(a * 1 + b)).toBeLessThan(0.2);
  });
});

describe('calibration', () => {
  it('bins, Brier and ECE', () => {
    const c = calibration([0.2, 0.2, 0.9, 0.9, 0.9, 0.9], [0, 1, 1, 1, 1, 0], [0, 0.5, 1.0001]);
    expect(c.bins.map((b) => [b.n, b.meanP, b.observed])).toEqual([
      [2, 0.2, 0.5],
      [4, 0.9, 0.75],
    ]);
    expect(c.ece).toBeCloseTo((2 * 0.3 + 4 * 0.15) / 6, 10);
    expect(c.brier).toBeCloseTo((0.04 + 0.64 + 3 * 0.01 + 0.81) / 6, 10);
  });

  it('reportableCandidate skips candidates without reportable evidence', () => {
    const f = (over: Partial<Features>): Features => ({
      email: 0,
      phone: 0,
      first: FIRST.exact,
      last: LAST.exact,
      swapped: false,
      dob: 0,
      address: 0,
      ...over,
    });
    const nameZip = { features: f({ address: 4 }), weight: 9 };
    const phone = { features: f({ first: 0, last: 0, phone: ID.agree }), weight: 8 };
    expect(reportableCandidate([nameZip, phone])).toBe(phone);
    expect(reportableCandidate([nameZip])).toBeUndefined();
  });
});

describe('engine confidence on a labelled set (test graph)', () => {
  let g: TestGraph;
  let set: LabelledRow[];
  let res: MatchResult[];
  beforeAll(async () => {
    g = await testGraph(TEST_GRAPH_DIR, 4000);
    set = await generateLabelledSet(g.warehouse, 'graph', 2500, 23);
    const matcher = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath });
    res = await matcher.matchBatch(
      set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 })),
      { matchLevels: ['I', 'H', 'D', 'A'], spatialMode: 'residential' },
    );
  }, 300_000);
  afterAll(() => g?.warehouse.close());

  it('I + D confidence is calibrated (ECE < 0.03, every bin of 50+ rows within 0.08)', () => {
    const ps: number[] = [];
    const ys: number[] = [];
    res.forEach((r, i) => {
      if (r.matchLevel !== 'I' && r.matchLevel !== 'D') return;
      ps.push(r.matchConfidence!);
      ys.push(set[i]!.personKey !== null && r.personKey === set[i]!.personKey ? 1 : 0);
    });
    expect(ps.length).toBeGreaterThan(1000);
    const c = calibration(ps, ys);
    expect(c.ece, JSON.stringify(c)).toBeLessThan(0.03);
    for (const b of c.bins) if (b.n >= 50) expect(Math.abs(b.meanP - b.observed), JSON.stringify(b)).toBeLessThan(0.08);
  });
});
