/**
 * Fitting the model of model.ts from labelled candidate pairs (supervised Fellegi-Sunter):
 * - m/u per field level are frequencies among true / false candidate pairs, add-one smoothed;
 *   u leaves out false pairs from the true person's own household: household members share the
 *   address, surname and landline, so counting them would teach u that an address agreement is
 *   worthless (a first fit did exactly that); telling members apart is the first name's and dob's job;
 *   weight = log2(m/u), clamped to +-14 so one field can never be infinitely decisive;
 *   "missing" stays 0 by definition (no information).
 * - The logistic mapping p = 1/(1+exp(-(a*w+b))) is fitted by Newton's method on (w, is_true),
 *   which absorbs the double counting of correlated fields that the independence assumption causes.
 */
import { matchWeight, SWAP_PENALTY, type WeightTable } from './model.ts';
import { individualType } from './levels.ts';
import { ID, type Features } from './types.ts';

export interface LabelledPair {
  features: Features;
  isMatch: boolean;
  /** A false pair inside the true person's household (spouse, child): kept out of u, see below. */
  sameHousehold?: boolean;
}

const FIELDS = ['email', 'phone', 'first', 'last', 'dob', 'address'] as const;

export function fitWeights(pairs: readonly LabelledPair[], levels: WeightTable): WeightTable {
  const out = {} as Record<(typeof FIELDS)[number], number[]>;
  const nT = pairs.filter((p) => p.isMatch).length;
  const nF = pairs.filter((p) => !p.isMatch && !p.sameHousehold).length;
  for (const field of FIELDS) {
    const size = levels[field].length;
    const m = new Array<number>(size).fill(1);
    const u = new Array<number>(size).fill(1);
    for (const p of pairs) if (p.isMatch || !p.sameHousehold) (p.isMatch ? m : u)[p.features[field]]! += 1;
    out[field] = m.map((mv, lvl) => {
      if (lvl === 0) return 0;
      const w = Math.log2(mv / (nT + size) / (u[lvl]! / (nF + size)));
      return Math.round(Math.max(-14, Math.min(14, w)) * 100) / 100;
    });
  }
  return out as WeightTable;
}

/**
 * Logistic mapping p = 1/(1+exp(-(a*x+b))) fitted by Newton/IRLS on (x, y) with Platt's targets:
 * a positive counts as (N+ + 1)/(N+ + 2) and a negative as 1/(N- + 2) instead of 1 and 0. Candidate
 * pairs are nearly separable, and with hard 0/1 targets the slope runs off to infinity; Platt's
 * targets keep it finite without pulling (a, b) toward an arbitrary point (the old ridge toward
 * (0, 0) with l2 = 25 was what made the earlier fits under-confident). `l2` adds an optional ridge
 * on a only. Step halving keeps every Newton step a descent step.
 */
export function fitPlatt(
  xs: readonly number[],
  ys: readonly number[],
  opts: { a0?: number; b0?: number; l2?: number } = {},
): { a: number; b: number } {
  const nPos = ys.filter((y) => y === 1).length;
  const nNeg = ys.length - nPos;
  const tPos = (nPos + 1) / (nPos + 2);
  const tNeg = 1 / (nNeg + 2);
  const ts = ys.map((y) => (y === 1 ? tPos : tNeg));
  const l2 = opts.l2 ?? 0;
  const loss = (a: number, b: number) => {
    let l = 0.5 * l2 * a * a;
    for (let i = 0; i < xs.length; i++) {
      const z = a * xs[i]! + b;
      // log(1 + e^z) - t*z, computed stably
      l += (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) - ts[i]! * z;
    }
    return l;
  };
  let a = opts.a0 ?? 0.5;
  let b = opts.b0 ?? -5;
  let cur = loss(a, b);
  for (let iter = 0; iter < 100; iter++) {
    let ga = l2 * a,
      gb = 0,
      haa = l2 + 1e-9,
      hab = 0,
      hbb = 1e-9;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const p = 1 / (1 + Math.exp(-(a * x + b)));
      const d = p - ts[i]!;
      ga += d * x;
      gb += d;
      const w = p * (1 - p);
      haa += w * x * x;
      hab += w * x;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let step = 1;
    let next = loss(a - da, b - db);
    while (next > cur + 1e-12 && step > 1e-6) {
      step /= 2;
      next = loss(a - step * da, b - step * db);
    }
    a -= step * da;
    b -= step * db;
    const done = Math.abs(cur - next) < 1e-10 * Math.max(1, Math.abs(cur));
    cur = next;
    if (done || (Math.abs(step * da) < 1e-9 && Math.abs(step * db) < 1e-9)) break;
  }
  return { a, b };
}

/** Fits (a, b) on labelled pairs scored with `weights` (see fitPlatt). */
export function fitLogistic(pairs: readonly LabelledPair[], weights: WeightTable): { a: number; b: number } {
  const { a, b } = fitPlatt(
    pairs.map((p) => matchWeight(p.features, weights)),
    pairs.map((p) => (p.isMatch ? 1 : 0)),
  );
  return { a: Math.round(a * 1e4) / 1e4, b: Math.round(b * 1e4) / 1e4 };
}

export interface CalibrationBin {
  lo: number;
  hi: number;
  n: number;
  meanP: number;
  observed: number;
}
export interface Calibration {
  n: number;
  brier: number;
  ece: number;
  bins: CalibrationBin[];
}

/** Default bins: fine near 1, where I matches live. */
export const CALIBRATION_BINS = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0001] as const;

/**
 * Reliability of predicted probabilities `ps` against outcomes `ys` (1 = right): per bin the mean
 * predicted p and the observed rate, the Brier score (mean squared error) and the expected
 * calibration error ECE = sum over bins of n_bin/n * |mean p - observed|.
 */
export function calibration(ps: readonly number[], ys: readonly number[], edges: readonly number[] = CALIBRATION_BINS): Calibration {
  const bins: CalibrationBin[] = [];
  let brier = 0;
  for (let i = 0; i < ps.length; i++) brier += (ps[i]! - ys[i]!) ** 2;
  let ece = 0;
  for (let k = 0; k < edges.length - 1; k++) {
    const lo = edges[k]!,
      hi = edges[k + 1]!;
    let n = 0,
      sp = 0,
      sy = 0;
    for (let i = 0; i < ps.length; i++)
      if (ps[i]! >= lo && ps[i]! < hi) {
        n++;
        sp += ps[i]!;
        sy += ys[i]!;
      }
    if (!n) continue;
    bins.push({ lo, hi: Math.min(1, hi), n, meanP: sp / n, observed: sy / n });
    ece += Math.abs(sp - sy);
  }
  return { n: ps.length, brier: ps.length ? brier / ps.length : 0, ece: ps.length ? ece / ps.length : 0, bins };
}

export function formatCalibration(c: Calibration): string {
  const lines = c.bins.map(
    (b) =>
      `  [${b.lo.toFixed(3)}, ${b.hi.toFixed(3)})  n=${String(b.n).padStart(6)}  mean p=${b.meanP.toFixed(4)}  observed=${b.observed.toFixed(4)}`,
  );
  return `${lines.join('\n')}\n  n=${c.n}  Brier=${c.brier.toFixed(5)}  ECE=${c.ece.toFixed(5)}`;
}

export function constantsBlock(w: WeightTable, a: number, b: number, note: string): string {
  const row = (k: keyof WeightTable) => `  ${k}: [${w[k].join(', ')}],`;
  return `// ${note}\nexport const WEIGHTS = {\n${FIELDS.map(row).join('\n')}\n};\nexport const SWAP_PENALTY = ${SWAP_PENALTY};\nexport const LOGIT_A = ${a};\nexport const LOGIT_B = ${b};`;
}

/**
 * The candidate of a row whose probability the engine can report (levels.ts): the best-weighted
 * candidate with person-level evidence (an I match type, threshold aside) or an agreeing email or
 * phone (D). Rows without one (name + ZIP only, address only) never report a probability, and
 * fitting on them would pull the curve toward a population the confidence is never shown for.
 * `sorted` must be sorted by weight, best first.
 */
export function reportableCandidate<C extends { features: Features; weight: number }>(sorted: readonly C[]): C | undefined {
  return sorted.find(
    (c) =>
      individualType({ features: c.features, probability: 1 }) !== null || c.features.email === ID.agree || c.features.phone === ID.agree,
  );
}
