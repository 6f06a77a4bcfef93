/**
 * Fellegi-Sunter estimation (src/identity/matcher/estimate.ts) on fixed small inputs with values
 * worked out by hand: u from level counts, one EM step, EM with a fixed field, the converged EM,
 * weights, and the term-frequency adjustment.
 */
import { describe, expect, it } from 'vitest';
import {
  countLevels,
  emEstimate,
  FIELDS,
  tfAdjustment,
  tfTable,
  uFromCounts,
  weightsFrom,
  type LevelTable,
} from '../../../src/identity/matcher/estimate.ts';
import { WEIGHTS } from '../../../src/identity/matcher/model.ts';
import { conflictGuard } from '../../../src/identity/matcher/refit.ts';
import type { Features } from '../../../src/identity/matcher/types.ts';

const SIZES = { email: 3, phone: 3, first: 6, last: 4, dob: 4, address: 6 };
const blank = (): Features => ({ email: 0, phone: 0, first: 0, last: 0, dob: 0, address: 0, swapped: false });
const vec = (f: Partial<Features>): Features => ({ ...blank(), ...f });
const table = (fill: (f: (typeof FIELDS)[number], n: number) => number[]): LevelTable =>
  Object.fromEntries(FIELDS.map((f) => [f, fill(f, SIZES[f])])) as LevelTable;

describe('u from random pairs', () => {
  it('is the smoothed level frequency over non-missing levels', () => {
    const counts = countLevels([vec({ email: 1 }), ...Array.from({ length: 9 }, () => vec({ email: 2 })), vec({})], SIZES);
    expect(counts.email).toEqual([1, 1, 9]);
    const u = uFromCounts(counts);
    // (1 + 0.5) / (10 + 2 * 0.5), (9 + 0.5) / 11; the missing level is 1 (no information)
    expect(u.email[0]).toBe(1);
    expect(u.email[1]).toBeCloseTo(1.5 / 11, 12);
    expect(u.email[2]).toBeCloseTo(9.5 / 11, 12);
    // a field never observed is uniform over its levels
    expect(u.dob).toEqual([1, 1 / 3, 1 / 3, 1 / 3]);
  });
});

describe('EM for m', () => {
  const u = table((f, n) => (f === 'email' ? [1, 0.1, 0.9] : [1, ...new Array<number>(n - 1).fill(1 / (n - 1))]));
  const m0 = table((f, n) => (f === 'email' ? [1, 0.9, 0.1] : [1, ...new Array<number>(n - 1).fill(1 / (n - 1))]));
  const vectors = [vec({ email: 1 }), vec({ email: 1 }), vec({ email: 1 }), vec({ email: 2 })];

  it('one step: posteriors 0.9 / 0.1, lambda 0.7, m the weighted frequencies', () => {
    const r = emEstimate(vectors, u, m0, 0.5, { maxIter: 1 });
    // E: agree 0.5*0.9 / (0.45 + 0.05) = 0.9, disagree 0.05 / (0.05 + 0.45) = 0.1; lambda = (3*0.9 + 0.1) / 4
    expect(r.lambda).toBeCloseTo(0.7, 12);
    // M: email counts 2.7 / 0.1, smoothed by 0.5: (2.7 + 0.5) / (2.8 + 1), (0.1 + 0.5) / 3.8
    expect(r.m.email[1]).toBeCloseTo(3.2 / 3.8, 12);
    expect(r.m.email[2]).toBeCloseTo(0.6 / 3.8, 12);
    expect(r.m.phone).toEqual([1, 0.5, 0.5]);
    expect(r.iterations).toBe(1);
    expect(r.converged).toBe(false);
  });

  it('a fixed field stays out of the likelihood and keeps its m', () => {
    const r = emEstimate(vectors, u, m0, 0.5, { maxIter: 1, fixed: ['email'] });
    expect(r.m.email).toEqual([1, 0.9, 0.1]);
    // nothing else informs the posterior: every pair keeps the prior 0.5
    expect(r.lambda).toBeCloseTo(0.5, 12);
  });

  it('converges on separable data to the fixed point', () => {
    // 30 pairs agreeing on email and dob (matches), 70 disagreeing on both (non-matches)
    const data = [
      ...Array.from({ length: 30 }, () => vec({ email: 1, dob: 1 })),
      ...Array.from({ length: 70 }, () => vec({ email: 2, dob: 3 })),
    ];
    const uu = table((f, n) =>
      f === 'email' ? [1, 0.01, 0.99] : f === 'dob' ? [1, 0.01, 0.01, 0.98] : [1, ...new Array<number>(n - 1).fill(1 / (n - 1))],
    );
    const r = emEstimate(data, uu, m0, 0.5, { alpha: 0.5 });
    expect(r.converged).toBe(true);
    expect(r.iterations).toBe(7);
    // fixed values of this input; near the hand values lambda 0.3, m = (30 + 0.5) / (30 + 1) for email and
    // 30.5 / 31.5 for dob (the non-matches keep a posterior of about 1e-5, which the smoothing then spreads)
    expect(r.lambda).toBeCloseTo(0.300008, 6);
    expect(r.m.email[1]).toBeCloseTo(0.983608, 6);
    expect(r.m.email[2]).toBeCloseTo(0.016392, 6);
    expect(r.m.dob[1]).toBeCloseTo(0.967995, 6);
    expect(r.m.email[1]).toBeCloseTo(30.5 / 31, 3);
    expect(r.m.dob[1]).toBeCloseTo(30.5 / 31.5, 3);
  });
});

describe('weights', () => {
  it('are log2(m/u), clamped to +-14, missing 0', () => {
    const m = table((_, n) => [1, ...new Array<number>(n - 1).fill(0.5)]);
    const u = table((_, n) => [1, ...new Array<number>(n - 1).fill(0.5)]);
    m.email = [1, 0.9, 0.1];
    u.email = [1, 0.1, 0.9];
    m.phone = [1, 0.99, 0.01];
    u.phone = [1, 1e-9, 1];
    const w = weightsFrom(m, u);
    expect(w.email).toEqual([0, 3.17, -3.17]);
    expect(w.phone).toEqual([0, 14, -6.64]);
    expect(w.dob).toEqual([0, 0, 0, 0]);
  });
});

describe('term-frequency adjustment', () => {
  const tf = tfTable(
    [
      { value: 'ZED', count: 1 },
      { value: 'SMITH', count: 100 },
      { value: 'JONES', count: 50 },
    ],
    1000,
    2,
  );

  it('keeps the most common values and bounds the unlisted ones by the least common kept', () => {
    expect(tf.shares).toEqual({ SMITH: 0.1, JONES: 0.05 });
    expect(tf.unlistedShare).toBe(0.05);
  });

  it('a common name weighs less than a rarer one, clamped to [-6, +2]', () => {
    // log2(0.0125 / 0.1) = -3, log2(0.0125 / 0.05) = -2
    expect(tfAdjustment(tf, 'SMITH', 0.0125)).toBe(-3);
    expect(tfAdjustment(tf, 'JONES', 0.0125)).toBe(-2);
    expect(tfAdjustment(tf, 'ZED', 0.0125)).toBe(-2);
    expect(tfAdjustment(tf, 'SMITH', 0.4)).toBe(2);
    expect(tfAdjustment(tf, 'SMITH', 0.0001)).toBe(-6);
  });
});

describe('conflict guard of the fitted I threshold', () => {
  it('sits just above name (one part fuzzy) + exact dob with email, phone and address disagreeing', () => {
    // prior weights: max(4.5 + 3, 3.5 + 3.5, 4 + 3.5) + 9 - 2 - 1.5 - 1 = 12 -> the next 0.25 step above: 12.25
    expect(conflictGuard(WEIGHTS)).toBe(12.25);
    const w = { ...WEIGHTS, dob: [0, 14, 6, 6, 6, -12] };
    // 7.5 + 14 - 4.5 = 17 -> 17.25
    expect(conflictGuard(w)).toBe(17.25);
    // with TF applied, the profile's exact name part may weigh TF_MAX_UP = 2 more: 19 -> 19.25
    expect(conflictGuard(w, 2)).toBe(19.25);
  });
});
