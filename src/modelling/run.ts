/**
 * One model run, end to end: labels -> privacy check -> stratified sample -> features -> training ->
 * scoring every person in SQL -> segment Parquet -> holdout metrics. Propensity and similarity
 * (propensity.ts, similarity.ts) are this run with different labels, exclusions and wording.
 *
 * Working tables live in the warehouse's in-memory database under a per-run prefix (visible to
 * every pooled connection, unlike TEMP tables) and are dropped when the run ends, failed or not.
 */
import { randomBytes } from 'node:crypto';
import { marginSql, probabilitySql, type TrainedModel } from './compile/sql.ts';
import { countLabels, materializeLabels, type LabelCounts } from './data/labels.ts';
import { DEFAULT_SAMPLE, drawSample, priorOffset, type SampleLimits } from './data/sample.ts';
import { ModelInputError, ModelPrivacyFloorError, ModelTrainingError, type FloorSubject } from './errors.ts';
import { parseExcludedColumns } from './features/excluded-columns.ts';
import { encodeDesign } from './features/design.ts';
import { DEFAULT_DERIVE, deriveFeatures, type Feature } from './features/derive.ts';
import { featureSources } from './features/sources.ts';
import { holdoutMetrics, type HoldoutMetrics } from './metrics/holdout.ts';
import { importances, type Importances } from './metrics/importance.ts';
import { materializeScores, writeAllScores, writeSegment } from './score.ts';
import { resolveTargetSize } from './target-size.ts';
import type { BoostOptions } from './train/gbdt.ts';
import { shiftMargin, trainModel, type CandidateReport } from './train/select.ts';
import { MODEL_TYPES, type MemberSet, type ModelField, type ModelStage, type ModelType, type ModelWarehouse } from './types.ts';

export interface ModelRunInput {
  /** The live field catalog (descriptors); features are derived from it. */
  fields: readonly ModelField[];
  /** The labelled persons: the seed (similarity) or the positive class (propensity). */
  labelled: MemberSet;
  modelType?: ModelType;
  /** Comma-prefixed catalog columns to leave out (",age,income_band"). */
  excludedColumns?: string | null;
  modelName?: string | null;
  /** Persons in the segment; default defaultTargetSize(). */
  targetSize?: number | null;
  /** Minimum persons behind any class, leaf or shown figure (spec 8: 50). */
  privacyFloor: number;
  /**
   * Smallest labelled set trained on (default: privacyFloor). A caller that refuses small sets by the
   * privacy layer's sticky threshold (at most the floor, decision 015) passes the lowest threshold, so
   * the engine does not refuse again at the exact floor (an exact "below the floor" answer).
   */
  labelledFloor?: number;
  /** Makes the split, the sample and the trees reproducible. Default 1. */
  randomSeed?: number;
  /** Where the segment's Parquet goes (one file per segment version). */
  membersPath: string;
  /** Optional Parquet of every person's score. */
  scoresPath?: string;
  /** Qualified persons table; default the discovery table of the release attached as `graph`. */
  personsTable?: string;
  sample?: Partial<SampleLimits>;
  boost?: Partial<Omit<BoostOptions, 'seed' | 'minLeafRows'>>;
  /** Field tag that marks model inputs; null = every non-PII field. Default `feature_store`. */
  featureTag?: string | null;
  onProgress?: (stage: ModelStage) => void;
}

export interface RunOptions {
  purpose: 'propensity' | 'similarity';
  /** Keep the labelled persons out of the segment (similarity: the seed is excluded). */
  excludeLabelled: boolean;
}

/** Everything needed to score again later: the features (catalog names, SQL columns) and the model. */
export interface StoredModel {
  format: 1;
  model_type: ModelType;
  selected_model_type: 'LOGISTIC_REG' | 'BOOSTED_TREE_CLASSIFIER';
  features: Feature[];
  model: TrainedModel;
}

/** The plain object the workflow stores on the run. */
export interface ModelRunMetrics extends Importances {
  purpose: 'propensity' | 'similarity';
  model_type: ModelType;
  model_name: string | null;
  selected_model_type: 'LOGISTIC_REG' | 'BOOSTED_TREE_CLASSIFIER';
  candidates: CandidateReport[];
  validation_auc: number | null;
  holdout: HoldoutMetrics;
  training: { sample_persons: number; sample_labelled: number; features: number; excluded_columns: string[]; seed: number };
  privacy_floor: number;
  graph_persons: number;
  labelled_persons: number;
  target_size: number;
  record_count: number;
  score_threshold: number | null;
}

export interface ModelRunResult {
  model: StoredModel;
  metrics: ModelRunMetrics;
  membersPath: string;
  scoresPath: string | null;
  timings_ms: Partial<Record<ModelStage, number>>;
}

function checkInput(input: ModelRunInput): void {
  if (!Number.isSafeInteger(input.privacyFloor) || input.privacyFloor < 1) {
    throw new ModelInputError('INVALID_MODEL_INPUT', 'privacyFloor must be a positive integer.');
  }
  if (input.modelType !== undefined && !MODEL_TYPES.includes(input.modelType)) {
    throw new ModelInputError('INVALID_MODEL_INPUT', `model_type must be one of ${MODEL_TYPES.join(', ')}.`);
  }
  if (input.randomSeed !== undefined && !Number.isSafeInteger(input.randomSeed)) {
    throw new ModelInputError('INVALID_MODEL_INPUT', 'randomSeed must be an integer.');
  }
}

function checkFloor(counts: LabelCounts, floor: number, subject: FloorSubject, labelledFloor = floor): void {
  if (counts.labelled < labelledFloor) throw new ModelPrivacyFloorError(subject, floor);
  if (counts.graph - counts.labelled < floor) throw new ModelPrivacyFloorError('negative_class', floor);
}

export async function runModel(wh: ModelWarehouse, input: ModelRunInput, o: RunOptions): Promise<ModelRunResult> {
  checkInput(input);
  const seed = input.randomSeed ?? 1;
  const floor = input.privacyFloor;
  const modelType = input.modelType ?? 'BOOSTED_TREE_CLASSIFIER';
  const excluded = parseExcludedColumns(input.excludedColumns, input.fields);
  const sources = featureSources(input.fields, { excluded, featureTag: input.featureTag });
  if (sources.length === 0) throw new ModelTrainingError('No feature columns are left once PII and excluded columns are removed.');
  const persons = input.personsTable ?? 'graph.discovery_persons';
  const prefix = `model_${randomBytes(6).toString('hex')}`;
  const labels = `${prefix}_labels`;
  const scores = `${prefix}_scores`;
  const timings: Partial<Record<ModelStage, number>> = {};
  let clock = performance.now();
  const stage = (s: ModelStage) => input.onProgress?.(s);
  const done = (s: ModelStage) => {
    const now = performance.now();
    timings[s] = Math.round(now - clock);
    clock = now;
  };
  try {
    stage('labels');
    await materializeLabels(wh, labels, input.labelled);
    const counts = await countLabels(wh, persons, labels, seed);
    checkFloor(counts, floor, o.purpose === 'similarity' ? 'seed' : 'positive_class', Math.min(floor, input.labelledFloor ?? floor));
    const candidates = o.excludeLabelled ? counts.graph - counts.labelled : counts.graph;
    const targetSize = resolveTargetSize(input.targetSize, counts.labelled, candidates);
    done('labels');

    stage('sample');
    const raw = await drawSample(wh, persons, labels, seed, counts, { ...DEFAULT_SAMPLE, ...input.sample }, sources);
    const weights = new Float64Array(raw.n).fill(1);
    const features = deriveFeatures(sources, raw, DEFAULT_DERIVE);
    if (features.length === 0) throw new ModelTrainingError('No feature varies in the training sample.');
    const rows = (part: number) => Array.from({ length: raw.n }, (_, i) => i).filter((i) => raw.part[i] === part);
    const train = encodeDesign(features, raw, rows(0), weights);
    const valid = encodeDesign(features, raw, rows(1), weights);
    const trainPos = train.y.reduce((a, b) => a + b, 0);
    if (trainPos === 0 || trainPos === train.n) throw new ModelTrainingError('The training sample holds only one class.');
    done('sample');

    stage('train');
    const minLeafRows = Math.max(20, floor);
    const selected = trainModel(modelType, features, train, valid, { seed, minLeafRows, boost: input.boost });
    // Back from the sample's class mix to the population's (data/sample.ts): ranks are unchanged.
    selected.model = shiftMargin(selected.model, priorOffset(raw, counts));
    done('train');

    stage('score');
    await materializeScores(wh, scores, persons, probabilitySql(marginSql(selected.model, features, 'p')));
    done('score');

    stage('segment');
    const segment = await writeSegment(wh, {
      scores,
      exclude: o.excludeLabelled ? labels : null,
      targetSize,
      seed,
      membersPath: input.membersPath,
    });
    if (input.scoresPath) await writeAllScores(wh, scores, input.scoresPath);
    done('segment');

    stage('metrics');
    const holdout = await holdoutMetrics(wh, { scores, labels, seed, floor, cut: segment.scoreThreshold });
    const why = importances(selected.model, features, train, floor);
    done('metrics');
    input.onProgress?.('done');

    const metrics: ModelRunMetrics = {
      purpose: o.purpose,
      model_type: modelType,
      model_name: input.modelName ?? null,
      selected_model_type: selected.modelType,
      candidates: selected.candidates,
      validation_auc: Number.isFinite(selected.validationAuc) ? selected.validationAuc : null,
      holdout,
      ...why,
      training: { sample_persons: train.n, sample_labelled: trainPos, features: features.length, excluded_columns: excluded, seed },
      privacy_floor: floor,
      graph_persons: counts.graph,
      labelled_persons: counts.labelled,
      target_size: targetSize,
      record_count: segment.recordCount,
      score_threshold: segment.scoreThreshold,
    };
    return {
      model: { format: 1, model_type: modelType, selected_model_type: selected.modelType, features, model: selected.model },
      metrics,
      membersPath: segment.membersPath,
      scoresPath: input.scoresPath ?? null,
      timings_ms: timings,
    };
  } finally {
    for (const t of [labels, scores]) await wh.query(`DROP TABLE IF EXISTS ${t}`).catch(() => {});
  }
}
