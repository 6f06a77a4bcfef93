/**
 * The three model types. AUTOML_CLASSIFIER trains a small grid (logistic regression, boosted trees of
 * depth 3 and of depth 6) and keeps the candidate with the best validation AUC; ties go to the
 * simpler model (earlier in the grid). Every candidate and its validation AUC is reported.
 */
import type { Design } from '../features/design.ts';
import type { Feature } from '../features/derive.ts';
import type { TrainedModel } from '../compile/sql.ts';
import { rocAuc } from '../metrics/auc.ts';
import type { ModelType } from '../types.ts';
import { DEFAULT_BOOST, trainBoosted, type BoostOptions } from './gbdt.ts';
import { DEFAULT_LOGISTIC, logisticMargins, trainLogistic } from './logistic.ts';

export interface CandidateReport {
  model_type: 'LOGISTIC_REG' | 'BOOSTED_TREE_CLASSIFIER';
  /** Hyper-parameters in words, e.g. "depth 5, 140 trees". */
  config: string;
  validation_auc: number;
}

export interface TrainOptions {
  seed: number;
  /** No tree leaf is fitted on fewer training rows (the privacy floor, at least 20). */
  minLeafRows: number;
  boost?: Partial<BoostOptions>;
}

export interface Selected {
  model: TrainedModel;
  modelType: 'LOGISTIC_REG' | 'BOOSTED_TREE_CLASSIFIER';
  validationAuc: number;
  candidates: CandidateReport[];
}

/** maxDepth undefined: the caller's or the default depth. */
type Spec = { type: 'LOGISTIC_REG' } | { type: 'BOOSTED_TREE_CLASSIFIER'; maxDepth?: number };

const GRID: Record<ModelType, Spec[]> = {
  LOGISTIC_REG: [{ type: 'LOGISTIC_REG' }],
  BOOSTED_TREE_CLASSIFIER: [{ type: 'BOOSTED_TREE_CLASSIFIER' }],
  AUTOML_CLASSIFIER: [
    { type: 'LOGISTIC_REG' },
    { type: 'BOOSTED_TREE_CLASSIFIER', maxDepth: 3 },
    { type: 'BOOSTED_TREE_CLASSIFIER', maxDepth: 6 },
  ],
};

export function trainModel(type: ModelType, features: readonly Feature[], train: Design, valid: Design, o: TrainOptions): Selected {
  let best: Selected | null = null;
  const candidates: CandidateReport[] = [];
  for (const spec of GRID[type]) {
    const fitted = fit(spec, features, train, valid, o);
    candidates.push(fitted.report);
    // NaN (a validation part without one of the classes) ranks below any real AUC.
    const auc = Number.isNaN(fitted.report.validation_auc) ? -Infinity : fitted.report.validation_auc;
    if (!best || auc > (Number.isNaN(best.validationAuc) ? -Infinity : best.validationAuc)) {
      best = { model: fitted.model, modelType: spec.type, validationAuc: fitted.report.validation_auc, candidates };
    }
  }
  return best!;
}

function fit(spec: Spec, features: readonly Feature[], train: Design, valid: Design, o: TrainOptions) {
  if (spec.type === 'LOGISTIC_REG') {
    const model = trainLogistic(features, train, DEFAULT_LOGISTIC);
    const auc = rocAuc(logisticMargins(model, features, valid), valid.y);
    return {
      model,
      report: { model_type: spec.type, config: `ridge ${model.lambda}, ${model.iterations} Newton steps`, validation_auc: auc },
    };
  }
  const params: BoostOptions = {
    ...DEFAULT_BOOST,
    ...o.boost,
    maxDepth: spec.maxDepth ?? o.boost?.maxDepth ?? DEFAULT_BOOST.maxDepth,
    minLeafRows: o.minLeafRows,
    seed: o.seed,
  };
  const { model, validationMargins } = trainBoosted(train, valid, params);
  const auc = rocAuc(validationMargins, valid.y);
  return {
    model,
    report: {
      model_type: spec.type,
      config: `depth ${params.maxDepth}, ${model.trees.length} trees, learning rate ${params.learningRate}`,
      validation_auc: auc,
    },
  };
}

/** The model with `offset` added to every margin (the case-control prior correction). */
export function shiftMargin(model: TrainedModel, offset: number): TrainedModel {
  return model.kind === 'logistic' ? { ...model, intercept: model.intercept + offset } : { ...model, base: model.base + offset };
}
