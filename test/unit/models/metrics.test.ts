/**
 * ROC AUC by rank sum, the default target size rule, and the privacy rule on importances.
 */
import { describe, expect, it } from 'vitest';
import { ModelInputError, defaultTargetSize, resolveTargetSize } from '../../../src/modelling/index.ts';
import { rocAuc } from '../../../src/modelling/metrics/auc.ts';
import { importances } from '../../../src/modelling/metrics/importance.ts';
import type { Design } from '../../../src/modelling/features/design.ts';
import type { Feature } from '../../../src/modelling/features/derive.ts';

describe('rocAuc', () => {
  it('is the share of positive-negative pairs ranked right, ties counting half', () => {
    expect(rocAuc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])).toBe(0.75);
    expect(rocAuc([1, 2, 3, 4], [0, 0, 1, 1])).toBe(1);
    expect(rocAuc([4, 3, 2, 1], [0, 0, 1, 1])).toBe(0);
    expect(rocAuc([0.5, 0.5, 0.5], [1, 0, 0])).toBe(0.5);
    expect(rocAuc([1, 2, 2, 3], [0, 1, 0, 1])).toBe(0.875);
    expect(rocAuc([1, 2], [1, 1])).toBeNaN();
  });
});

describe('target size', () => {
  it('defaults to ten times the seed, capped at 1,000,000 and a quarter of the candidates', () => {
    expect(defaultTargetSize(5_000, 995_000)).toBe(50_000);
    expect(defaultTargetSize(500_000, 10_000_000)).toBe(1_000_000);
    expect(defaultTargetSize(50_000, 1_000_000)).toBe(250_000);
    expect(defaultTargetSize(100, 300)).toBe(75);
    expect(defaultTargetSize(100, 3)).toBe(1);
  });

  it('takes an explicit positive integer, cut to the candidates', () => {
    expect(resolveTargetSize(1234, 5_000, 995_000)).toBe(1234);
    expect(resolveTargetSize(2_000_000, 5_000, 995_000)).toBe(995_000);
    expect(resolveTargetSize(undefined, 5_000, 995_000)).toBe(50_000);
    expect(() => resolveTargetSize(0, 5, 10)).toThrow(ModelInputError);
    expect(() => resolveTargetSize(2.5, 5, 10)).toThrow(/positive integer/);
  });
});

describe('importances', () => {
  // 4 rows per pattern: feature 1 ("golf") on 60 positives, feature 2 ("yoga") on 3 positives only.
  const n = 400;
  const y = Uint8Array.from({ length: n }, (_, i) => (i < 100 ? 1 : 0));
  const active: number[] = [];
  const rowPtr = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    if (i < 60 || (i >= 100 && i < 200)) active.push(1);
    if (i < 3 || (i >= 200 && i < 300)) active.push(2);
    rowPtr[i + 1] = active.length;
  }
  const d: Design = {
    n,
    q: 1,
    p: 3,
    y,
    w: new Float64Array(n).fill(1),
    numeric: [Float64Array.from({ length: n }, (_, i) => (i % 2 ? i : NaN))],
    rowPtr,
    active: Uint16Array.from(active),
  };
  const features: Feature[] = [
    { kind: 'numeric', name: 'age', field: 'age', column: 'age', type: 'INTEGER', lo: 0, hi: 400, mean: 200, sd: 100 },
    { kind: 'bit', name: 'interests=golf', field: 'interests', column: 'interests_mask', bit: 13, value: 'golf' },
    { kind: 'bit', name: 'interests=yoga', field: 'interests', column: 'interests_mask', bit: 34, value: 'yoga' },
  ];

  it('shows weights learnt from at least `floor` labelled persons and withholds the rest, name included', () => {
    const model = { kind: 'logistic' as const, intercept: -1, coefficients: [0.5, 1, 3], lambda: 1, iterations: 3 };
    const r = importances(model, features, d, 50);
    expect(r.features.map((f) => f.feature)).toEqual(['age', 'interests=golf']);
    expect(r.suppressed_features).toBe(1);
    expect(JSON.stringify(r)).not.toContain('yoga');
    const golf = r.features[1]!;
    expect(golf).toMatchObject({ field: 'interests', value: 'golf', weight: 1 });
    expect(golf.odds_ratio).toBeCloseTo(Math.E, 12);
    // |1| * sqrt(0.4 * 0.6) and |0.5| * 1 (per SD), over the total including the withheld yoga |3| * sqrt(0.2575 * 0.7425).
    const total = Math.sqrt(0.24) + 0.5 + 3 * Math.sqrt(0.2575 * 0.7425);
    expect(golf.importance).toBeCloseTo(Math.sqrt(0.24) / total, 12);
    expect(r.field_importance.map((f) => f.field)).toEqual(['age', 'interests']);
    expect(r.field_importance[0]!.importance).toBeCloseTo(0.5 / total, 12);
    expect(r.field_importance[1]!.importance).toBe(golf.importance);
  });

  it('uses split gain shares for boosted trees', () => {
    const model = { kind: 'boosted_trees' as const, base: 0, trees: [], params: {} as never, gains: [10, 30, 60] };
    const r = importances(model, features, d, 50);
    expect(r.features).toEqual([
      { feature: 'interests=golf', field: 'interests', value: 'golf', importance: 0.3 },
      { feature: 'age', field: 'age', importance: 0.1 },
    ]);
    expect(importances(model, features, d, 40).features).toHaveLength(2);
    expect(importances(model, features, d, 3).features).toHaveLength(3);
  });
});
