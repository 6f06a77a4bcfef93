/**
 * Why the model ranks people as it does, in catalog names: per feature a weight (logistic regression:
 * log-odds per standard deviation or per presence, and its odds ratio) and an importance share, and
 * per catalog field the sum of its features' shares.
 * - Logistic regression: importance = |weight| x the feature's standard deviation in the
 *   training sample (numeric features are already per standard deviation), so a rare indicator with a
 *   big weight does not outrank a common one that moves many people.
 * - Boosted trees: importance = the feature's share of the total split gain.
 *
 * Privacy: a feature's figures are shown only when at least `floor` labelled persons of the training
 * sample have it (for a numeric feature: have a value), so every weight shown is learnt from at least
 * that many seed or positive-class members. Otherwise the feature is left out entirely, name included
 * (the existence of a rare value among the seed is itself a disclosure), and counted in
 * `suppressed_features`. A feature nearly every labelled person has (state = CA for a Californian
 * seed) is shown: it describes the many who have it, not the few who lack it.
 */
import type { TrainedModel } from '../compile/sql.ts';
import type { Design } from '../features/design.ts';
import type { Feature } from '../features/derive.ts';

export interface FeatureImportance {
  feature: string;
  field: string;
  value?: string | boolean;
  /** Logistic regression only. */
  weight?: number;
  odds_ratio?: number;
  importance: number;
}

export interface Importances {
  features: FeatureImportance[];
  field_importance: { field: string; importance: number }[];
  suppressed_features: number;
}

interface Presence {
  posWith: number;
  share: number;
}

/** Per feature: labelled rows that have it, and its weighted share of all rows. */
export function presence(features: readonly Feature[], d: Design): Presence[] {
  const out: Presence[] = features.map(() => ({ posWith: 0, share: 0 }));
  const weighted = new Float64Array(features.length);
  let totalW = 0;
  for (let i = 0; i < d.n; i++) {
    const y = d.y[i]!;
    totalW += d.w[i]!;
    for (let j = 0; j < d.q; j++) {
      if (!Number.isNaN(d.numeric[j]![i]!)) {
        out[j]!.posWith += y;
        weighted[j]! += d.w[i]!;
      }
    }
    for (let k = d.rowPtr[i]!; k < d.rowPtr[i + 1]!; k++) {
      const j = d.active[k]!;
      out[j]!.posWith += y;
      weighted[j]! += d.w[i]!;
    }
  }
  out.forEach((p, j) => {
    p.share = totalW > 0 ? weighted[j]! / totalW : 0;
  });
  return out;
}

export function importances(model: TrainedModel, features: readonly Feature[], d: Design, floor: number): Importances {
  const pres = presence(features, d);
  const raw = features.map((f, j) => {
    if (model.kind === 'boosted_trees') return model.gains[j] ?? 0;
    const b = model.coefficients[j]!;
    const spread = f.kind === 'numeric' ? 1 : Math.sqrt(pres[j]!.share * (1 - pres[j]!.share));
    return Math.abs(b) * spread;
  });
  const total = raw.reduce((a, b) => a + b, 0) || 1;
  const shown: FeatureImportance[] = [];
  let suppressed = 0;
  features.forEach((f, j) => {
    const ok = pres[j]!.posWith >= floor;
    if (!ok) {
      suppressed++;
      return;
    }
    const item: FeatureImportance = { feature: f.name, field: f.field, importance: raw[j]! / total };
    if (f.kind === 'equals' || f.kind === 'bit') item.value = f.value;
    if (model.kind === 'logistic') {
      item.weight = model.coefficients[j]!;
      item.odds_ratio = Math.exp(model.coefficients[j]!);
    }
    shown.push(item);
  });
  shown.sort((a, b) => b.importance - a.importance || (a.feature < b.feature ? -1 : 1));
  const byField = new Map<string, number>();
  for (const s of shown) byField.set(s.field, (byField.get(s.field) ?? 0) + s.importance);
  const field_importance = [...byField]
    .map(([field, importance]) => ({ field, importance }))
    .sort((a, b) => b.importance - a.importance || (a.field < b.field ? -1 : 1));
  return { features: shown, field_importance, suppressed_features: suppressed };
}
