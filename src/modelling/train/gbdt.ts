/**
 * BOOSTED_TREE_CLASSIFIER: gradient-boosted trees on the logistic loss, our own histogram GBDT (see
 * tree.ts) rather than ml-xgboost's wasm build, which crashes above ~100k rows (fixed wasm heap) and
 * would still need its model JSON compiled to SQL. Deterministic for a seed: row subsampling draws
 * from a seeded PRNG, every sum runs in row order.
 *
 * Boosting stops early when the validation log loss has not improved for `patience` trees (the model
 * keeps the trees up to its best round), or when the trees reach `maxSplitNodes` split nodes.
 */
import { seededRandom } from '../../lib/random.ts';
import type { Design } from '../features/design.ts';
import { binNumeric, numericThresholds } from './bins.ts';
import { growTree, predictTree, type TreeNode, type TreeParams } from './tree.ts';

export interface BoostedModel {
  kind: 'boosted_trees';
  /** Starting log-odds: the training sample's prevalence, moved by the prior correction (data/sample.ts). */
  base: number;
  trees: TreeNode[][];
  params: BoostOptions;
  /** Summed split gain per feature (for importances). */
  gains: number[];
}

export interface BoostOptions extends TreeParams {
  maxTrees: number;
  /**
   * Boosting stops once the trees hold this many split nodes. Scoring in DuckDB costs about the same
   * per CASE node whatever the tree (docs/decisions/024-model-engine.md), so this bounds the time to
   * score the graph: ~1,000 nodes is ~20-40 s at 10M persons on 2 cores.
   */
  maxSplitNodes: number;
  patience: number;
  subsample: number;
  seed: number;
}

export const DEFAULT_BOOST: BoostOptions = {
  maxDepth: 5,
  minSplitGain: 20,
  learningRate: 0.1,
  lambda: 1,
  minChildWeight: 1,
  minLeafRows: 50,
  maxTrees: 300,
  maxSplitNodes: 1000,
  patience: 20,
  subsample: 0.8,
  seed: 1,
};

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function logLoss(m: Float64Array, d: Design): number {
  let s = 0;
  let sw = 0;
  for (let i = 0; i < d.n; i++) {
    const x = m[i]!;
    const sp = x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
    s += d.w[i]! * (sp - d.y[i]! * x);
    sw += d.w[i]!;
  }
  return s / sw;
}

export interface BoostResult {
  model: BoostedModel;
  /** Validation margins of the kept model. */
  validationMargins: Float64Array;
}

export function trainBoosted(train: Design, valid: Design, o: BoostOptions = DEFAULT_BOOST): BoostResult {
  const thresholds = numericThresholds(train);
  const trainBins = binNumeric(train, thresholds);
  const validBins = binNumeric(valid, thresholds);
  let sw = 0;
  let sy = 0;
  for (let i = 0; i < train.n; i++) {
    sw += train.w[i]!;
    sy += train.w[i]! * train.y[i]!;
  }
  const prevalence = Math.min(1 - 1e-6, Math.max(1e-6, sy / sw));
  const base = Math.log(prevalence / (1 - prevalence));
  const m = new Float64Array(train.n).fill(base);
  const vm = new Float64Array(valid.n).fill(base);
  const g = new Float64Array(train.n);
  const h = new Float64Array(train.n);
  const gains = new Float64Array(train.p);
  const trees: TreeNode[][] = [];
  const gainsAt: Float64Array[] = [];
  let best = { loss: logLoss(vm, valid), trees: 0, margins: vm.slice() };
  const random = seededRandom(o.seed);
  let splitNodes = 0;
  for (let t = 0; t < o.maxTrees && splitNodes < o.maxSplitNodes; t++) {
    for (let i = 0; i < train.n; i++) {
      const pr = sigmoid(m[i]!);
      g[i] = train.w[i]! * (pr - train.y[i]!);
      h[i] = train.w[i]! * pr * (1 - pr);
    }
    const rows: number[] = [];
    for (let i = 0; i < train.n; i++) if (random() < o.subsample) rows.push(i);
    const tree = growTree({ d: train, bins: trainBins, thresholds, g, h }, Uint32Array.from(rows), o, gains);
    trees.push(tree);
    splitNodes += tree.filter((n) => 'f' in n).length;
    gainsAt.push(gains.slice());
    for (let i = 0; i < train.n; i++) m[i]! += predictTree(tree, train, trainBins, thresholds, i);
    for (let i = 0; i < valid.n; i++) vm[i]! += predictTree(tree, valid, validBins, thresholds, i);
    const loss = logLoss(vm, valid);
    if (loss < best.loss - 1e-9) best = { loss, trees: trees.length, margins: vm.slice() };
    else if (trees.length - best.trees >= o.patience) break;
    if (tree.length === 1) break; // a stump: the gradients no longer find any split
  }
  const kept = Math.max(1, best.trees);
  const keptTrees = trees.slice(0, kept);
  const margins = best.trees === 0 ? recompute(keptTrees, base, valid, validBins, thresholds) : best.margins;
  return {
    model: { kind: 'boosted_trees', base, trees: keptTrees, params: o, gains: Array.from(gainsAt[kept - 1] ?? gains) },
    validationMargins: margins,
  };
}

function recompute(trees: TreeNode[][], base: number, d: Design, bins: Uint8Array[], thresholds: number[][]): Float64Array {
  const out = new Float64Array(d.n).fill(base);
  for (const tree of trees) for (let i = 0; i < d.n; i++) out[i]! += predictTree(tree, d, bins, thresholds, i);
  return out;
}
