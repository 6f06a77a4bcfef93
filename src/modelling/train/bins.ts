/**
 * Histogram bins of the numeric features for the boosted trees. Bin 0 is NULL; a non-NULL value x
 * falls in bin 1 + #{thresholds < x}, so "bin <= b" (b >= 1) is exactly "x IS NULL OR x <= t[b-1]" and
 * "bin <= 0" is "x IS NULL": the two forms the SQL compiler emits. Thresholds are values that occur
 * in the sample (never computed midpoints), so JS and DuckDB compare the very same doubles.
 */
import type { Design } from '../features/design.ts';

/** At most this many thresholds per feature (bins = thresholds + 2, the NULL bin and the top bin). */
export const MAX_THRESHOLDS = 62;

export function numericThresholds(d: Design, maxThresholds = MAX_THRESHOLDS): number[][] {
  return d.numeric.map((col) => {
    const xs = Float64Array.from(col.filter((v) => !Number.isNaN(v))).sort();
    const distinct: number[] = [];
    for (let i = 0; i < xs.length; i++) if (i === 0 || xs[i] !== xs[i - 1]) distinct.push(xs[i]!);
    // The largest value is never a threshold: nothing would fall to its right.
    if (distinct.length <= maxThresholds + 1) return distinct.slice(0, -1);
    const out: number[] = [];
    for (let k = 1; k <= maxThresholds; k++) {
      const t = xs[Math.floor((k / (maxThresholds + 1)) * (xs.length - 1))]!;
      if (t < distinct[distinct.length - 1]! && (out.length === 0 || t > out[out.length - 1]!)) out.push(t);
    }
    return out;
  });
}

/** Bin of every row for every numeric feature (Uint8: at most 64 bins). */
export function binNumeric(d: Design, thresholds: number[][]): Uint8Array[] {
  return d.numeric.map((col, j) => {
    const t = thresholds[j]!;
    const out = new Uint8Array(d.n);
    for (let i = 0; i < d.n; i++) {
      const x = col[i]!;
      if (Number.isNaN(x)) continue;
      let lo = 0;
      let hi = t.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (t[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      out[i] = 1 + lo;
    }
    return out;
  });
}
