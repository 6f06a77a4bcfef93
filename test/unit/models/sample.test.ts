/**
 * Case-control sampling rates and the prior correction that maps the sample's class mix back to the
 * population's.
 */
import { describe, expect, it } from 'vitest';
import { keepThresholds, priorOffset } from '../../../src/modelling/data/sample.ts';
import type { LabelCounts } from '../../../src/modelling/data/labels.ts';
import type { RawSample } from '../../../src/modelling/features/raw.ts';

const counts = (pos: number, neg: number): LabelCounts => ({
  graph: 0,
  labelled: 0,
  parts: [
    { pos, neg },
    { pos: 0, neg: 0 },
    { pos: 0, neg: 0 },
  ],
});

describe('keepThresholds', () => {
  it('keeps a class whole under its cap and thins it to the cap above', () => {
    expect(keepThresholds(counts(35_000, 665_000), { positives: 50_000, negatives: 150_000 })).toEqual([1_000_000, 225_564]);
    expect(keepThresholds(counts(350_000, 6_650_000), { positives: 50_000, negatives: 150_000 })).toEqual([142_858, 22_557]);
  });
});

describe('priorOffset', () => {
  it('is logit(population prevalence) - logit(sample prevalence) of the train part', () => {
    // Train part: 1 positive of 4 sampled (25%); population 5% positive. Validation rows do not count.
    const raw: RawSample = { n: 6, part: Uint8Array.from([0, 0, 0, 0, 1, 1]), y: Uint8Array.from([1, 0, 0, 0, 1, 1]), columns: new Map() };
    const logit = (p: number) => Math.log(p / (1 - p));
    expect(priorOffset(raw, counts(50, 950))).toBeCloseTo(logit(0.05) - logit(0.25), 12);
    expect(priorOffset(raw, counts(250, 750))).toBeCloseTo(0, 12);
  });
});
