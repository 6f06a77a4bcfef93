/**
 * One regression tree of the boosted model, grown depth-wise on gradient histograms (second-order
 * boosting, as XGBoost / LightGBM do): a node's histogram holds, per numeric feature and bin, and per
 * indicator feature for its "1" side, the sums of gradients g, Hessians h and the row count. A split
 * maximizes  GL^2/(HL+lambda) + GR^2/(HR+lambda) - G^2/(H+lambda)  subject to both children having
 * at least `minLeafRows` rows (the privacy floor: no leaf value is fitted on fewer persons) and
 * `minChildWeight` Hessian. Only the smaller child's histogram is built; the larger one is the
 * parent's minus it.
 */
import type { Design } from '../features/design.ts';

/** Internal node: numeric splits send NULL and x <= t left (t null: only NULL left); indicators send 0 left. */
export type TreeNode = { f: number; t: number | null; l: number; r: number } | { v: number };

export interface TreeParams {
  maxDepth: number;
  /** A split must gain at least this much (XGBoost's gamma, here in units of 2x the loss it removes). */
  minSplitGain: number;
  lambda: number;
  minChildWeight: number;
  minLeafRows: number;
  learningRate: number;
}

export interface TreeInput {
  d: Design;
  bins: Uint8Array[];
  thresholds: number[][];
  g: Float64Array;
  h: Float64Array;
}

/** Per-node histogram: numeric [feature][bin] then indicators, each as (g, h, count). */
class Histogram {
  readonly g: Float64Array;
  readonly h: Float64Array;
  readonly c: Float64Array;
  constructor(readonly size: number) {
    this.g = new Float64Array(size);
    this.h = new Float64Array(size);
    this.c = new Float64Array(size);
  }
  minus(other: Histogram): Histogram {
    const out = new Histogram(this.size);
    for (let i = 0; i < this.size; i++) {
      out.g[i] = this.g[i]! - other.g[i]!;
      out.h[i] = this.h[i]! - other.h[i]!;
      out.c[i] = this.c[i]! - other.c[i]!;
    }
    return out;
  }
}

interface Node {
  start: number;
  end: number;
  depth: number;
  G: number;
  H: number;
  hist: Histogram;
  id: number;
}
interface Split {
  gain: number;
  f: number;
  bin: number;
}

export function growTree(input: TreeInput, rows: Uint32Array, p: TreeParams, gains: Float64Array): TreeNode[] {
  const { d } = input;
  const B = Math.max(2, ...input.thresholds.map((t) => t.length + 2));
  const size = d.q * B + (d.p - d.q);
  const idx = rows.slice();
  const scratch = new Uint32Array(idx.length);
  const nodes: TreeNode[] = [{ v: 0 }];
  let G = 0;
  let H = 0;
  for (const i of idx) {
    G += input.g[i]!;
    H += input.h[i]!;
  }
  const queue: Node[] = [{ start: 0, end: idx.length, depth: 0, G, H, hist: build(input, idx, 0, idx.length, B, size), id: 0 }];
  while (queue.length > 0) {
    const node = queue.shift()!;
    const split = node.depth < p.maxDepth ? bestSplit(input, node, B, p) : null;
    if (!split) {
      nodes[node.id] = { v: (-node.G / (node.H + p.lambda)) * p.learningRate };
      continue;
    }
    gains[split.f]! += split.gain;
    const mid = partition(input, idx, scratch, node, split);
    const left: Node = { start: node.start, end: mid, depth: node.depth + 1, G: 0, H: 0, hist: node.hist, id: nodes.length };
    const right: Node = { start: mid, end: node.end, depth: node.depth + 1, G: 0, H: 0, hist: node.hist, id: nodes.length + 1 };
    nodes.push({ v: 0 }, { v: 0 });
    const [small, large] = mid - node.start <= node.end - mid ? [left, right] : [right, left];
    small.hist = build(input, idx, small.start, small.end, B, size);
    large.hist = node.hist.minus(small.hist);
    for (const c of [left, right])
      for (let k = c.start; k < c.end; k++) {
        c.G += input.g[idx[k]!]!;
        c.H += input.h[idx[k]!]!;
      }
    const threshold = split.f < d.q ? (split.bin === 0 ? null : input.thresholds[split.f]![split.bin - 1]!) : null;
    nodes[node.id] = { f: split.f, t: threshold, l: left.id, r: right.id };
    queue.push(left, right);
  }
  return nodes;
}

function build(input: TreeInput, idx: Uint32Array, start: number, end: number, B: number, size: number): Histogram {
  const { d, g, h, bins } = input;
  const hist = new Histogram(size);
  for (let f = 0; f < d.q; f++) {
    const col = bins[f]!;
    const off = f * B;
    for (let k = start; k < end; k++) {
      const i = idx[k]!;
      const b = off + col[i]!;
      hist.g[b]! += g[i]!;
      hist.h[b]! += h[i]!;
      hist.c[b]! += 1;
    }
  }
  const base = d.q * B - d.q;
  for (let k = start; k < end; k++) {
    const i = idx[k]!;
    const gi = g[i]!;
    const hi = h[i]!;
    for (let a = d.rowPtr[i]!; a < d.rowPtr[i + 1]!; a++) {
      const b = base + d.active[a]!;
      hist.g[b]! += gi;
      hist.h[b]! += hi;
      hist.c[b]! += 1;
    }
  }
  return hist;
}

function bestSplit(input: TreeInput, node: Node, B: number, p: TreeParams): Split | null {
  const { d } = input;
  const n = node.end - node.start;
  if (n < 2 * p.minLeafRows) return null;
  const score = (gs: number, hs: number) => (gs * gs) / (hs + p.lambda);
  const parent = score(node.G, node.H);
  let best: Split | null = null;
  const consider = (f: number, bin: number, gl: number, hl: number, cl: number) => {
    const gr = node.G - gl;
    const hr = node.H - hl;
    const cr = n - cl;
    if (cl < p.minLeafRows || cr < p.minLeafRows || hl < p.minChildWeight || hr < p.minChildWeight) return;
    const gain = score(gl, hl) + score(gr, hr) - parent;
    if (gain > p.minSplitGain && (!best || gain > best.gain)) best = { gain, f, bin };
  };
  const { hist } = node;
  for (let f = 0; f < d.q; f++) {
    const nb = input.thresholds[f]!.length + 2;
    let gl = 0;
    let hl = 0;
    let cl = 0;
    for (let b = 0; b < nb - 1; b++) {
      const k = f * B + b;
      gl += hist.g[k]!;
      hl += hist.h[k]!;
      cl += hist.c[k]!;
      consider(f, b, gl, hl, cl);
    }
  }
  const base = d.q * B - d.q;
  for (let f = d.q; f < d.p; f++) {
    // Left is "indicator = 0": the node's totals minus the "1" side.
    const k = base + f;
    consider(f, 0, node.G - hist.g[k]!, node.H - hist.h[k]!, n - hist.c[k]!);
  }
  return best;
}

/** Stable in-place partition of idx[start, end): rows going left first. Returns the boundary. */
function partition(input: TreeInput, idx: Uint32Array, scratch: Uint32Array, node: Node, s: Split): number {
  let l = node.start;
  let r = 0;
  for (let k = node.start; k < node.end; k++) {
    const i = idx[k]!;
    if (goesLeft(input, i, s.f, s.bin)) idx[l++] = i;
    else scratch[r++] = i;
  }
  idx.set(scratch.subarray(0, r), l);
  return l;
}

function goesLeft(input: TreeInput, i: number, f: number, bin: number): boolean {
  if (f < input.d.q) return input.bins[f]![i]! <= bin;
  return !activeAt(input.d, i, f);
}

function activeAt(d: Design, i: number, f: number): boolean {
  for (let k = d.rowPtr[i]!; k < d.rowPtr[i + 1]!; k++) {
    const a = d.active[k]!;
    if (a >= f) return a === f;
  }
  return false;
}

/** Index of the leaf a design row reaches, using precomputed numeric bins. */
export function leafOf(nodes: readonly TreeNode[], d: Design, bins: Uint8Array[], thresholds: number[][], i: number): number {
  let at = 0;
  for (let n = nodes[0]!; !('v' in n); n = nodes[at]!) {
    let left: boolean;
    if (n.f < d.q) {
      const b = bins[n.f]![i]!;
      left = n.t === null ? b === 0 : b === 0 || b - 1 < binCountBelow(thresholds[n.f]!, n.t);
    } else {
      left = !activeAt(d, i, n.f);
    }
    at = left ? n.l : n.r;
  }
  return at;
}

/** The leaf value a design row reaches. */
export function predictTree(nodes: readonly TreeNode[], d: Design, bins: Uint8Array[], thresholds: number[][], i: number): number {
  return (nodes[leafOf(nodes, d, bins, thresholds, i)] as { v: number }).v;
}

/** Number of thresholds <= t: a row with bin b has x <= t exactly when b - 1 < that count. */
function binCountBelow(t: number[], value: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
