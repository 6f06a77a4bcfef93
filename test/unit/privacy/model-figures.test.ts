/**
 * Model workflow figures through the privacy layer (src/modules/model-segments/protect.ts): counts as
 * questions (the labelled set's, the members', the model's own), weights and shares noised and rounded,
 * one figure one answer. Fixed secret, so the figures are reproducible.
 */
import { describe, expect, it } from 'vitest';
import type { MembershipQuery } from '../../../src/graph/membership/types.ts';
import { privacyProtect, type ProtectContext } from '../../../src/modules/model-segments/index.ts';
import { createPrivacyWithSecret, questionOf } from '../../../src/modules/privacy/index.ts';
import type { ModelRunMetrics } from '../../../src/modelling/index.ts';

const privacy = createPrivacyWithSecret({ secret: 'unit-secret', floor: 50, lookupK: 10 });
const protect = privacyProtect(privacy);
const seed: MembershipQuery = {
  kind: 'filters',
  groups: [{ id: 'g', combinator: 'AND', filters: [{ field: 'state', op: '=', value: 'CA' }] }],
};
const members: MembershipQuery = {
  kind: 'composition',
  composition: {
    include: [{ kind: 'members', segmentId: 'seg_1', subtype: 'similarity', parquetPath: '/x/members.parquet' }],
    exclude: [],
    setLogic: 'union',
  },
};
const ctx: ProtectContext = { orgId: 'org_1', subject: 'model_metrics', floor: 50, labelled: seed, members, model: 'm1' };

const metrics = {
  purpose: 'similarity',
  model_type: 'LOGISTIC_REG',
  model_name: null,
  selected_model_type: 'LOGISTIC_REG',
  candidates: [{ model_type: 'LOGISTIC_REG', config: 'l2', validation_auc: 0.7312 }],
  validation_auc: 0.7312,
  holdout: {
    persons: 450,
    positives: 30,
    prevalence: 0.0667,
    roc_auc: 0.8123,
    log_loss: 0.2345,
    top_decile_lift: 2.345,
    deciles: [{ decile: 1, persons: 30, positives: null, lift: 2.345 }],
    precision_at_cut: 0.4,
    recall_at_cut: 0.6,
    withheld: [],
  },
  features: [{ feature: 'state=TX', field: 'state', value: 'TX', weight: 0.8123, odds_ratio: 2.253, importance: 0.41234 }],
  field_importance: [{ field: 'state', importance: 0.41234 }],
  suppressed_features: 2,
  training: { sample_persons: 2000, sample_labelled: 300, features: 12, excluded_columns: [], seed: 1 },
  privacy_floor: 50,
  graph_persons: 3000,
  labelled_persons: 354,
  target_size: 661,
  record_count: 661,
  score_threshold: 0.123456,
} as unknown as ModelRunMetrics;

describe('model figures through the privacy layer', () => {
  const shown = protect(metrics, ctx) as any;

  it("counts are the layer's answers to their questions; below the floor they are null", () => {
    expect(shown.labelled_persons).toBe(privacy.protectCount({ question: questionOf(seed), trueCount: 354 }).count);
    expect(shown.record_count).toBe(privacy.shownCount({ question: questionOf(members), trueCount: 661 }).record_count);
    expect(shown.target_size).toBe(shown.record_count);
    expect(shown.holdout.positives).toBeNull();
    expect(shown.holdout.deciles[0].persons).toBeNull();
    expect(shown.holdout.persons).not.toBeNull();
    // Fixed values under the unit secret.
    expect([shown.labelled_persons, shown.record_count, shown.holdout.persons, shown.graph_persons]).toEqual(FIXED_COUNTS);
  });

  it('weights and shares are noised and rounded; the odds ratio follows the shown weight; the top decile is decile 1', () => {
    const f = shown.features[0];
    expect(f.weight).not.toBe(0.8123);
    expect(Math.abs(f.weight - 0.8123)).toBeLessThan(0.07);
    expect(Number.isInteger(Math.round(f.weight * 100 * 1e6) / 1e6)).toBe(true);
    expect(f.odds_ratio).toBe(Math.round(Math.exp(f.weight) * 100) / 100);
    expect(Number.isInteger(Math.round(f.importance * 1000 * 1e6) / 1e6)).toBe(true);
    expect(shown.holdout.top_decile_lift).toBe(shown.holdout.deciles[0].lift);
    expect(shown.holdout.roc_auc).toBeGreaterThanOrEqual(0);
    expect(shown.holdout.roc_auc).toBeLessThanOrEqual(1);
    expect([f.weight, f.importance, shown.holdout.roc_auc, shown.score_threshold]).toEqual(FIXED_VALUES);
  });

  it('the same figures asked again give the same answers; the seed-size step answers as the labelled set', () => {
    expect(protect(metrics, ctx)).toEqual(shown);
    expect(protect({ seed_persons: 354 }, { ...ctx, subject: 'seed' })).toEqual({ seed_persons: shown.labelled_persons });
    // Another model (another name) gets other noise on its own figures, not on the shared questions.
    const other = protect(metrics, { ...ctx, model: 'm2' }) as any;
    expect(other.labelled_persons).toBe(shown.labelled_persons);
    expect(other.record_count).toBe(shown.record_count);
  });
});

const FIXED_COUNTS = [348, 668, 451, 3000];
const FIXED_VALUES = [0.82, 0.417, 0.81, 0.123];
