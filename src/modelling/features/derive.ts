/**
 * Concrete features from feature sources and the training rows of the sample. A feature is either
 * numeric (a DOUBLE, possibly NULL) or an indicator (0/1, never NULL); both are serialized with the
 * model, and compile/*.ts turns them back into SQL over the persons table.
 *
 * Names: numeric `age`; its missing indicator `home_value:missing`; a boolean `homeowner`; a category
 * value `income_band=100k_150k` (also `state=CA`); a bitmask bit `interests=golf`.
 */
import type { FeatureSource, NumericType } from './sources.ts';
import type { RawColumn, RawSample } from './raw.ts';

export type Feature =
  | { kind: 'numeric'; name: string; field: string; column: string; type: NumericType; lo: number; hi: number; mean: number; sd: number }
  | { kind: 'missing'; name: string; field: string; column: string }
  | { kind: 'equals'; name: string; field: string; column: string; value: string | boolean }
  | { kind: 'bit'; name: string; field: string; column: string; bit: number; value: string };

export interface DeriveOptions {
  /** Open STRING fields (no vocabulary) get one-hot features for at most this many values. */
  topK: number;
  /** A category value or bit must occur in at least this many training rows (and not in all but that many). */
  minCount: number;
}

export const DEFAULT_DERIVE: DeriveOptions = { topK: 16, minCount: 10 };

/** Numeric features first, then indicators (the design layout relies on that order). */
export function deriveFeatures(sources: readonly FeatureSource[], raw: RawSample, o: DeriveOptions = DEFAULT_DERIVE): Feature[] {
  const train: number[] = [];
  for (let i = 0; i < raw.n; i++) if (raw.part[i] === 0) train.push(i);
  const numeric: Feature[] = [];
  const indicators: Feature[] = [];
  for (const s of sources) {
    const col = raw.columns.get(s.field);
    if (!col) continue;
    if (s.kind === 'numeric' && col.kind === 'numeric') {
      const f = numericFeature(s, col.values, train);
      if (f) numeric.push(f);
      const nulls = train.reduce((a, i) => a + (Number.isNaN(col.values[i]!) ? 1 : 0), 0);
      if (f && nulls >= o.minCount && train.length - nulls >= o.minCount) {
        indicators.push({ kind: 'missing', name: `${s.field}:missing`, field: s.field, column: s.column });
      }
    } else if (s.kind === 'boolean' && col.kind === 'boolean') {
      const trues = train.reduce((a, i) => a + (col.values[i] === 1 ? 1 : 0), 0);
      const nulls = train.reduce((a, i) => a + (col.values[i] === -1 ? 1 : 0), 0);
      if (usable(trues, train.length, o)) indicators.push({ kind: 'equals', name: s.field, field: s.field, column: s.column, value: true });
      if (usable(nulls, train.length, o))
        indicators.push({ kind: 'missing', name: `${s.field}:missing`, field: s.field, column: s.column });
    } else if (s.kind === 'category' && col.kind === 'category') {
      for (const value of categoryValues(s.vocabulary, col.values, train, o)) {
        indicators.push({ kind: 'equals', name: `${s.field}=${value}`, field: s.field, column: s.column, value });
      }
    } else if (s.kind === 'bitmask' && col.kind === 'bitmask') {
      s.vocabulary.forEach((value, bit) => {
        const n = train.reduce((a, i) => a + (bitSet(col, i, bit) ? 1 : 0), 0);
        if (usable(n, train.length, o))
          indicators.push({ kind: 'bit', name: `${s.field}=${value}`, field: s.field, column: s.column, bit, value });
      });
    }
  }
  return [...numeric, ...indicators];
}

const usable = (count: number, total: number, o: DeriveOptions) => count >= o.minCount && total - count >= o.minCount;

export function bitSet(col: Extract<RawColumn, { kind: 'bitmask' }>, row: number, bit: number): boolean {
  // Halves are exact integers below 2^32; >>> reads them as uint32.
  return (((bit < 32 ? col.lo[row]! : col.hi[row]!) >>> (bit & 31)) & 1) === 1;
}

/**
 * Clipped at the 0.5th and 99.5th percentiles (a few extreme incomes must not set the scale), then
 * standardized for the Newton solver. A field with no spread is dropped.
 */
function numericFeature(s: Extract<FeatureSource, { kind: 'numeric' }>, values: Float64Array, train: number[]): Feature | null {
  const xs = Float64Array.from(train.map((i) => values[i]!).filter((v) => !Number.isNaN(v))).sort();
  if (xs.length < 2) return null;
  const lo = xs[Math.floor(0.005 * (xs.length - 1))]!;
  const hi = xs[Math.ceil(0.995 * (xs.length - 1))]!;
  if (!(hi > lo)) return null;
  let sum = 0;
  for (const v of xs) sum += Math.min(hi, Math.max(lo, v));
  const mean = sum / xs.length;
  let ss = 0;
  for (const v of xs) ss += (Math.min(hi, Math.max(lo, v)) - mean) ** 2;
  const sd = Math.sqrt(ss / (xs.length - 1));
  if (!(sd > 0)) return null;
  return { kind: 'numeric', name: s.field, field: s.field, column: s.column, type: s.type, lo, hi, mean, sd };
}

/** Vocabulary values seen often enough, in vocabulary order; open fields: the topK most frequent. */
function categoryValues(vocabulary: readonly string[] | null, values: (string | null)[], train: number[], o: DeriveOptions): string[] {
  const counts = new Map<string, number>();
  for (const i of train) {
    const v = values[i];
    if (v !== null && v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  if (vocabulary) return vocabulary.filter((v) => usable(counts.get(v) ?? 0, train.length, o));
  return [...counts]
    .filter(([, n]) => usable(n, train.length, o))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, o.topK)
    .map(([v]) => v);
}
