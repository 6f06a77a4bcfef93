/**
 * The privacy layer's rules over numbers: sticky noise, the low-count threshold, independent noise per
 * bucket. Pure functions of (secret, question, true count): no state, so every process agrees.
 */
import { DomainError } from '../../core/errors.ts';
import { DYNAMIC_SD, STATIC_SD, layerNoise, noiseBound, threshold, totalNoise } from './noise.ts';
import type { Question } from './question.ts';
import { createSetMeasure, xorHex, type MeasuredBucket, type MeasuredSet } from './sets.ts';

export type GroupValue = string | number | boolean | null;
export interface Bucket {
  group_value: GroupValue;
  count: number;
}
export interface ProtectedBuckets {
  groups: Bucket[];
  suppressed_groups: number;
}
export interface ProtectedCount {
  /** The number shown (never below the floor), or null when suppressed. */
  count: number | null;
  suppressed: boolean;
}

export type CountReason = 'below_privacy_floor';
export interface ShownCount {
  record_count: number | null;
  record_count_reason: CountReason | null;
}

export interface PrivacyOptions {
  /** Server secret the noise is derived from (never rotated: rotating gives fresh noise to average). */
  secret: string;
  /** Privacy floor (spec 8: 50). */
  floor: number;
  /** k of k-anonymity for lookup rows. */
  lookupK: number;
}

export function floorNotMet(floor: number, what = 'The result'): DomainError {
  return new DomainError('AGGREGATION_FLOOR_NOT_MET', `${what} is below the privacy minimum of ${floor} records, so it is not shown.`, {
    details: { privacy_floor: floor },
    nextStep: 'Broaden the filters (wider geography, fewer conditions) so at least the minimum number of people match.',
  });
}

export function createPrivacyService(o: PrivacyOptions) {
  const { secret, floor } = o;

  const order = (a: Bucket, b: Bucket) => b.count - a.count || String(a.group_value).localeCompare(String(b.group_value));

  /** One number with noise `noise()` (computed only when shown), thresholded by `thresholdName`. */
  function protectWith(noise: () => number, thresholdName: string, trueCount: number): ProtectedCount {
    if (trueCount < floor && trueCount < threshold(secret, thresholdName, floor)) return { count: null, suppressed: true };
    return { count: Math.max(floor, Math.round(trueCount + noise())), suppressed: false };
  }
  const protect = (layers: readonly string[], thresholdName: string, trueCount: number) =>
    protectWith(() => totalNoise(secret, layers), thresholdName, trueCount);

  /**
   * A measured set as shown (docs/decisions/052): threshold and dynamic noise seeded by the set's hash
   * (plus `facet` for a second number of the same set), static noise by the question's remaining
   * conditions. Same set, same conditions: same answer, whatever else the wording says.
   */
  function protectSet(input: { set: Pick<MeasuredSet, 'n' | 'h' | 'layers'>; facet?: string }): ProtectedCount {
    const { set } = input;
    const seed = input.facet ? `${set.h}|${input.facet}` : set.h;
    return protectWith(() => totalNoise(secret, set.layers, STATIC_SD) + layerNoise(secret, `d:${seed}`, DYNAMIC_SD), `set:${seed}`, set.n);
  }

  /** Buckets of one dimension, measured by set; with `top`, the rest as one `other` bucket (their union). */
  function protectMeasuredGroups(buckets: readonly MeasuredBucket[], top?: number): ProtectedBuckets {
    const shown = buckets.map((b) => ({ b, p: protectSet({ set: b.set }) }));
    const ranked = shown.sort((a, z) => (z.p.count ?? -1) - (a.p.count ?? -1) || z.b.set.n - a.b.set.n);
    const head = top === undefined ? ranked : ranked.slice(0, top);
    const groups: Bucket[] = [];
    let suppressed = 0;
    for (const s of head) {
      if (s.p.count === null) suppressed += 1;
      else groups.push({ group_value: s.b.group_value, count: s.p.count });
    }
    const rest = top === undefined ? [] : ranked.slice(top);
    if (rest.length > 0) {
      const layers = rest[0]!.b.set.layers.filter((l) => !l.startsWith('v:')).concat(`v:${rest[0]!.b.dimension}|"other"`);
      const set = { n: rest.reduce((n, s) => n + s.b.set.n, 0), h: rest.reduce((h, s) => xorHex(h, s.b.set.h), '0'), layers };
      const other = protectSet({ set });
      if (other.count === null) suppressed += 1;
      else groups.push({ group_value: 'other', count: other.count });
    }
    return { groups: groups.sort(order), suppressed_groups: suppressed };
  }

  const facetLayers = (q: Question, facet: string | undefined) => (facet ? [...q.layers, `f:${q.key}|${facet}`] : q.layers);

  /** A bucket: the question's layers (their sum computed once per grouping, `base`) + its bucket and value layers. */
  function bucketOf(q: Question, base: () => number, dimension: string, b: Bucket) {
    const v = JSON.stringify(b.group_value);
    const name = `${q.key}|${dimension}|${v}`;
    const own = [`b:${name}`, `v:${dimension}|${v}`].filter((l) => !q.layers.includes(l));
    return { ...protectWith(() => base() + totalNoise(secret, own), `t:${name}`, b.count), group_value: b.group_value };
  }

  function protectCount(input: { question: Question; trueCount: number; facet?: string; set?: MeasuredSet }): ProtectedCount {
    if (input.set) return protectSet({ set: input.set, ...(input.facet ? { facet: input.facet } : {}) });
    const name = `${input.question.key}|${input.facet ?? ''}`;
    return protect(facetLayers(input.question, input.facet), name, input.trueCount);
  }

  return {
    floor,
    lookupK: o.lookupK,

    /**
     * A count as shown: `count` is true + sticky noise (never below the floor), or null when the true
     * count is below the floor and below the question's sticky threshold. `facet` names a second
     * number of the same question (e.g. `matched`), which gets a layer of its own.
     */
    protectCount,

    /** The total of a question, or 422 AGGREGATION_FLOOR_NOT_MET when it is suppressed. */
    protectTotal(input: { question: Question; trueCount: number; set?: MeasuredSet }): number {
      const p = protectCount(input);
      if (p.count === null) throw floorNotMet(floor);
      return p.count;
    },

    /** For stored counts (segments, audiences): `record_count`, null with `below_privacy_floor` when suppressed. */
    shownCount(input: { question: Question; trueCount: number; facet?: string; set?: MeasuredSet }): ShownCount {
      const p = protectCount(input);
      return p.count === null
        ? { record_count: null, record_count_reason: 'below_privacy_floor' }
        : { record_count: p.count, record_count_reason: null };
    },

    protectSet,
    protectMeasuredGroups,
    /** Measures a question by its member set (sets.ts): run it with the warehouse, show it with protectSet. */
    measure: createSetMeasure(secret),

    /**
     * Buckets of a grouping: each shown bucket noised independently (its own bucket layer), the
     * suppressed ones only counted. So `total - Σ groups` gives noise, not a suppressed bucket's
     * count. With `top`, the largest `top` buckets (by shown count) plus `other` (the rest, protected
     * as one bucket).
     */
    protectGroups(input: { question: Question; dimension: string; buckets: readonly Bucket[]; top?: number }): ProtectedBuckets {
      const { question, dimension, top } = input;
      let sum: number | null = null;
      const base = () => (sum ??= totalNoise(secret, question.layers));
      const shown = input.buckets.map((b) => ({ bucket: b, p: bucketOf(question, base, dimension, b) }));
      const ranked = [...shown].sort((a, b) => (b.p.count ?? -1) - (a.p.count ?? -1) || b.bucket.count - a.bucket.count);
      const head = top === undefined ? ranked : ranked.slice(0, top);
      const groups: Bucket[] = [];
      let suppressed = 0;
      for (const s of head) {
        if (s.p.count === null) suppressed += 1;
        else groups.push({ group_value: s.bucket.group_value, count: s.p.count });
      }
      if (top !== undefined && ranked.length > top) {
        const other = bucketOf(question, base, dimension, {
          group_value: 'other',
          count: ranked.slice(top).reduce((n, s) => n + s.bucket.count, 0),
        });
        if (other.count === null) suppressed += 1;
        else groups.push({ group_value: 'other', count: other.count });
      }
      return { groups: groups.sort(order), suppressed_groups: suppressed };
    },

    /**
     * Whether a part of a question may contribute lookup rows: it passes the floor on its own, under the
     * part's own sticky threshold (so eligibility is no exact oracle of "at least 50").
     */
    partEligible(question: Question, trueCount: number): boolean {
      return !protectCount({ question, trueCount, facet: 'lookup_part' }).suppressed;
    },

    /**
     * A real-valued figure (a model weight, an importance share, a holdout ratio) as shown: true +
     * sticky noise of `sd` seeded by `name` (so the same figure always shows the same value), rounded to
     * `decimals` and kept within [min, max]. Rounding after noise hides one person's contribution
     * (which is smaller than `sd` when the figure is learnt from at least the floor of persons).
     */
    protectValue(input: { name: string; value: number; sd: number; decimals: number; min?: number; max?: number }): number {
      const noisy = input.value + layerNoise(secret, `r:${input.name}`, input.sd);
      const bounded = Math.min(input.max ?? Infinity, Math.max(input.min ?? -Infinity, noisy));
      const scale = 10 ** input.decimals;
      return Math.round(bounded * scale) / scale;
    },

    /** Largest |shown - true| of a shown count with `layerCount` layers (for documentation and tests). */
    noiseBound,
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
