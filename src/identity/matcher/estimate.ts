/**
 * Unsupervised Fellegi-Sunter estimation (issue #15), pure functions over comparison vectors:
 *
 * - u = P(level | non-match) from *random* pairs of graph persons (`uFromCounts`): a random pair is a
 *   non-match with certainty, so plain level frequencies are u. (u from blocked pairs would be biased:
 *   a pair found by the dob + first-name block agrees on both by construction.)
 * - m = P(level | match) and the match share lambda by expectation-maximisation over the *blocked*
 *   pairs of an input list (`emEstimate`), with u held fixed (as Splink does): E-step the posterior
 *   match probability of each distinct comparison vector under conditional independence, M-step m as
 *   the posterior-weighted level frequencies. Level 0 ("missing") carries no information (m = u = 1).
 *   One EM session per blocking rule (pairs that agree on the rule's fields), with the rule's fields
 *   `fixed`: left out of the likelihood, since they agree by construction (refit.ts combines sessions).
 * - weight = log2(m/u) per level (`weightsFrom`), clamped to +-WEIGHT_CLAMP.
 * - Term-frequency adjustment (`tfAdjustment`): an exact name agreement on value v is worth
 *   log2(m_exact / tf(v)) instead of log2(m_exact / u_exact), i.e. the level weight plus
 *   log2(u_exact / tf(v)), clamped to [-TF_MAX_DOWN, +TF_MAX_UP]; tf(v) = share of graph persons with v.
 *   A common surname weighs less than a rare one.
 */
import type { Features } from './types.ts';

export const FIELDS = ['email', 'phone', 'first', 'last', 'dob', 'address'] as const;
export type Field = (typeof FIELDS)[number];
/** Per field, one number per level (index = the level number of types.ts; index 0 = missing). */
export type LevelTable = Record<Field, number[]>;

export const WEIGHT_CLAMP = 14;
/** Smoothing pseudo-count per level, for u counts and for the EM's weighted m counts. */
export const SMOOTHING = 0.5;
export const TF_MAX_DOWN = 6;
export const TF_MAX_UP = 2;

/** Probabilities over the non-missing levels from level counts (index 0 ignored, set to 1). */
export function uFromCounts(counts: LevelTable, alpha = SMOOTHING): LevelTable {
  const out = {} as LevelTable;
  for (const f of FIELDS) {
    const c = counts[f];
    const total = c.slice(1).reduce((a, b) => a + b, 0) + alpha * (c.length - 1);
    out[f] = c.map((v, l) => (l === 0 ? 1 : (v + alpha) / total));
  }
  return out;
}

/** Level counts of comparison vectors (levels per field as in `sizes`). */
export function countLevels(vectors: readonly Features[], sizes: Record<Field, number>): LevelTable {
  const out = {} as LevelTable;
  for (const f of FIELDS) out[f] = new Array<number>(sizes[f]).fill(0);
  for (const v of vectors) for (const f of FIELDS) out[f][v[f]]! += 1;
  return out;
}

export interface EmResult {
  m: LevelTable;
  lambda: number;
  iterations: number;
  converged: boolean;
}

interface Pattern {
  levels: number[];
  count: number;
}

/** Identical comparison vectors collapsed into one pattern with a count (EM cost ~ distinct patterns). */
function patterns(vectors: readonly Features[]): Pattern[] {
  const byKey = new Map<string, Pattern>();
  for (const v of vectors) {
    const levels = FIELDS.map((f) => v[f]);
    const key = levels.join(',');
    const p = byKey.get(key);
    if (p) p.count++;
    else byKey.set(key, { levels, count: 1 });
  }
  return [...byKey.values()];
}

/**
 * EM for m and lambda with u fixed. `m0` / `lambda0` start the iteration; stops when no m or
 * lambda moves more than `tol`, or after `maxIter` rounds.
 */
export function emEstimate(
  vectors: readonly Features[],
  u: LevelTable,
  m0: LevelTable,
  lambda0: number,
  opts: { maxIter?: number; tol?: number; alpha?: number; fixed?: readonly Field[] } = {},
): EmResult {
  const maxIter = opts.maxIter ?? 200;
  const tol = opts.tol ?? 1e-7;
  const alpha = opts.alpha ?? SMOOTHING;
  const pats = patterns(vectors);
  // Fields of the session's blocking rule agree by construction: left out of the likelihood, m kept.
  const fixed = new Set<Field>(opts.fixed ?? []);
  let m = Object.fromEntries(FIELDS.map((f) => [f, [...m0[f]]])) as LevelTable;
  let lambda = lambda0;
  for (let iter = 1; iter <= maxIter; iter++) {
    // E-step: posterior match probability per pattern, in logs.
    const counts = Object.fromEntries(FIELDS.map((f) => [f, new Array<number>(m[f].length).fill(0)])) as LevelTable;
    let matchMass = 0,
      total = 0;
    for (const p of pats) {
      let lm = Math.log(lambda),
        lu = Math.log(1 - lambda);
      p.levels.forEach((l, i) => {
        const f = FIELDS[i]!;
        if (l === 0 || fixed.has(f)) return;
        lm += Math.log(m[f][l]!);
        lu += Math.log(u[f][l]!);
      });
      const post = 1 / (1 + Math.exp(lu - lm));
      const w = post * p.count;
      matchMass += w;
      total += p.count;
      p.levels.forEach((l, i) => {
        counts[FIELDS[i]!][l]! += w;
      });
    }
    // M-step.
    const next = uFromCounts(counts, alpha);
    for (const f of fixed) next[f] = [...m[f]];
    const nextLambda = Math.min(1 - 1e-9, Math.max(1e-9, matchMass / total));
    let delta = Math.abs(nextLambda - lambda);
    for (const f of FIELDS)
      next[f].forEach((v, l) => {
        delta = Math.max(delta, Math.abs(v - m[f][l]!));
      });
    m = next;
    lambda = nextLambda;
    if (delta < tol) return { m, lambda, iterations: iter, converged: true };
  }
  return { m, lambda, iterations: maxIter, converged: false };
}

/** log2(m/u) per level, clamped and rounded to 0.01; missing = 0. */
export function weightsFrom(m: LevelTable, u: LevelTable): LevelTable {
  const out = {} as LevelTable;
  for (const f of FIELDS) {
    out[f] = m[f].map((mv, l) => {
      if (l === 0) return 0;
      const w = Math.log2(mv / u[f][l]!);
      return Math.round(Math.max(-WEIGHT_CLAMP, Math.min(WEIGHT_CLAMP, w)) * 100) / 100;
    });
  }
  return out;
}

/** Term frequencies of one attribute: value -> share of graph persons carrying it, and the floor for unlisted values. */
export interface TfTable {
  /** Persons the shares are taken over. */
  n: number;
  /** Share of every listed value (the most common ones). */
  shares: Record<string, number>;
  /** Values not listed are at most this common (the smallest listed count / n). */
  unlistedShare: number;
}

/** A TF table from (value, count) rows over `n` persons, keeping the `top` most common values. */
export function tfTable(rows: readonly { value: string; count: number }[], n: number, top: number): TfTable {
  const sorted = [...rows].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, top);
  const shares: Record<string, number> = {};
  for (const r of sorted) shares[r.value] = r.count / n;
  const last = sorted[sorted.length - 1];
  return { n, shares, unlistedShare: last ? last.count / n : 1 / Math.max(1, n) };
}

/**
 * Bits added to an exact agreement on `value`: log2(uExact / tf(value)), clamped to
 * [-TF_MAX_DOWN, TF_MAX_UP], rounded to 0.01. Unlisted values count as `unlistedShare`.
 */
export function tfAdjustment(table: TfTable, value: string, uExact: number): number {
  const share = Object.hasOwn(table.shares, value) ? table.shares[value]! : table.unlistedShare;
  const adj = Math.log2(uExact / share);
  return Math.round(Math.max(-TF_MAX_DOWN, Math.min(TF_MAX_UP, adj)) * 100) / 100;
}

/** P(two random persons agree exactly) = sum of squared shares over the listed values (a lower bound). */
export function exactAgreement(table: TfTable): number {
  return Object.values(table.shares).reduce((a, s) => a + s * s, 0);
}
