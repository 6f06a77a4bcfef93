/**
 * LOGISTIC_REG: L2-regularized logistic regression with an unpenalized intercept, fitted by Newton's
 * method (IRLS) on the training sample (row weights honoured; the sampler gives every row weight 1).
 *
 * Numeric features enter standardized (clipped to the sample's 0.5-99.5th percentiles, centred, per
 * standard deviation; NULL at the mean, with a separate missing indicator), indicators as 0/1, so one
 * ridge strength suits every coefficient. Each Newton step accumulates the gradient and the Hessian
 * X'VX over the rows' non-zero entries (~40 of ~150 per row) and solves (X'VX + lambda I) d = g by
 * Cholesky; a step that raises the penalized loss is halved. Why not aggregate queries in DuckDB:
 * docs/decisions/024-model-engine.md (10,011 SUM expressions per step took 5.7 s at 200k rows).
 */
import type { Design } from '../features/design.ts';
import type { Feature } from '../features/derive.ts';
import { solveSpd } from './linalg.ts';

export interface LogisticModel {
  kind: 'logistic';
  /** Intercept on the standardized scale. */
  intercept: number;
  /** One per feature: numeric per standard deviation, indicators per presence (log-odds). */
  coefficients: number[];
  lambda: number;
  iterations: number;
}

export interface LogisticOptions {
  /** Ridge strength, in units of the (mean-1) sample weights. */
  lambda: number;
  maxIterations: number;
  tolerance: number;
}

export const DEFAULT_LOGISTIC: LogisticOptions = { lambda: 1, maxIterations: 30, tolerance: 1e-7 };

/** Standardized numeric inputs of a design, computed once (z = 0 for NULL). */
export function standardize(features: readonly Feature[], d: Design): Float64Array[] {
  return d.numeric.map((col, j) => {
    const f = features[j]!;
    if (f.kind !== 'numeric') throw new Error(`feature ${j} is not numeric`);
    return Float64Array.from(col, (x) => (Number.isNaN(x) ? 0 : (Math.min(f.hi, Math.max(f.lo, x)) - f.mean) / f.sd));
  });
}

function margins(beta: Float64Array, z: Float64Array[], d: Design): Float64Array {
  const eta = new Float64Array(d.n).fill(beta[0]!);
  for (let j = 0; j < d.q; j++) {
    const b = beta[j + 1]!;
    const col = z[j]!;
    for (let i = 0; i < d.n; i++) eta[i]! += b * col[i]!;
  }
  for (let i = 0; i < d.n; i++) {
    let s = 0;
    for (let k = d.rowPtr[i]!; k < d.rowPtr[i + 1]!; k++) s += beta[d.active[k]! + 1]!;
    eta[i]! += s;
  }
  return eta;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
/** log(1 + e^x) without overflow. */
const softplus = (x: number) => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)));

function penalizedLoss(beta: Float64Array, z: Float64Array[], d: Design, lambda: number): number {
  const eta = margins(beta, z, d);
  let loss = 0;
  for (let i = 0; i < d.n; i++) loss += d.w[i]! * (softplus(eta[i]!) - d.y[i]! * eta[i]!);
  let pen = 0;
  for (let j = 1; j < beta.length; j++) pen += beta[j]! ** 2;
  return loss + (lambda / 2) * pen;
}

export function trainLogistic(features: readonly Feature[], d: Design, o: LogisticOptions = DEFAULT_LOGISTIC): LogisticModel {
  const P = d.p + 1;
  const z = standardize(features, d);
  const beta = new Float64Array(P);
  const prevalence = weightedMean(d);
  beta[0] = Math.log(prevalence / (1 - prevalence));
  let loss = penalizedLoss(beta, z, d, o.lambda);
  let iterations = 0;
  const idx = new Int32Array(P);
  const val = new Float64Array(P);
  for (; iterations < o.maxIterations; iterations++) {
    const eta = margins(beta, z, d);
    const g = new Float64Array(P);
    const h = new Float64Array(P * P);
    for (let i = 0; i < d.n; i++) {
      const pr = sigmoid(eta[i]!);
      const r = d.w[i]! * (d.y[i]! - pr);
      const v = d.w[i]! * pr * (1 - pr);
      // The row's non-zero entries: intercept, numeric features, active indicators (sorted indices).
      let m = 0;
      idx[m] = 0;
      val[m++] = 1;
      for (let j = 0; j < d.q; j++) {
        idx[m] = j + 1;
        val[m++] = z[j]![i]!;
      }
      for (let k = d.rowPtr[i]!; k < d.rowPtr[i + 1]!; k++) {
        idx[m] = d.active[k]! + 1;
        val[m++] = 1;
      }
      for (let a = 0; a < m; a++) {
        const ia = idx[a]!;
        const xa = val[a]!;
        g[ia]! += r * xa;
        const va = v * xa;
        const row = ia * P;
        for (let b = a; b < m; b++) h[row + idx[b]!]! += va * val[b]!;
      }
    }
    for (let j = 1; j < P; j++) {
      g[j]! -= o.lambda * beta[j]!;
      h[j * P + j]! += o.lambda;
    }
    h[0]! += 1e-9;
    const step = solveSpd(h, g, P);
    let scale = 1;
    let next = beta;
    let nextLoss = loss;
    for (let halvings = 0; halvings < 20; halvings++, scale /= 2) {
      next = Float64Array.from(beta, (b, j) => b + scale * step[j]!);
      nextLoss = penalizedLoss(next, z, d, o.lambda);
      if (nextLoss <= loss + 1e-12 * Math.abs(loss)) break;
    }
    const maxStep = Math.max(...Array.from(step, (s) => Math.abs(s * scale)));
    beta.set(next);
    const improvement = loss - nextLoss;
    loss = nextLoss;
    if (maxStep < o.tolerance || improvement < o.tolerance * Math.abs(loss)) {
      iterations++;
      break;
    }
  }
  return { kind: 'logistic', intercept: beta[0]!, coefficients: Array.from(beta.subarray(1)), lambda: o.lambda, iterations };
}

function weightedMean(d: Design): number {
  let sw = 0;
  let sy = 0;
  for (let i = 0; i < d.n; i++) {
    sw += d.w[i]!;
    sy += d.w[i]! * d.y[i]!;
  }
  const m = sy / sw;
  return Math.min(1 - 1e-6, Math.max(1e-6, m));
}

/** Margins (log-odds) of a fitted model on a design, for validation AUC. */
export function logisticMargins(model: LogisticModel, features: readonly Feature[], d: Design): Float64Array {
  return margins(Float64Array.from([model.intercept, ...model.coefficients]), standardize(features, d), d);
}
