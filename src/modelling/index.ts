/**
 * The modelling engine beneath similarity and propensity segments (issue #19). Protocol-free: it
 * reads the warehouse and catalog field descriptors passed in, and writes Parquet member sets; it
 * knows nothing of segments, workflows or HTTP (docs/decisions/024-model-engine.md).
 *
 *   const n = await countMembers(warehouse, positiveClass);          // refuse below the floor first
 *   const r = await runPropensity(warehouse, {
 *     fields: CATALOG_FIELDS, positiveClass, modelType: 'BOOSTED_TREE_CLASSIFIER',
 *     excludedColumns: ',age', privacyFloor: 50, membersPath: '.../members-v2.parquet',
 *   });
 *   r.metrics   // plain object for the workflow run: AUC, lift, importances (privacy-filtered)
 *   r.model     // features + model, JSON-serializable; marginSql(r.model.model, r.model.features)
 *
 *   const parsed = parseSeedDescription('homeowners in California aged 30 to 45', CATALOG_FIELDS);
 *   parsed.filters      // [{field:'homeowner',op:'=',value:true}, {field:'state',...}, {field:'age',op:'BETWEEN',...}]
 *   parsed.unrecognized // words the review gate should show as not understood
 */
export type { MemberSet, ModelField, ModelStage, ModelType, ModelWarehouse } from './types.ts';
export { MODEL_TYPES } from './types.ts';
export { ModelInputError, ModelPrivacyFloorError, ModelTrainingError, type FloorSubject } from './errors.ts';
export { parseExcludedColumns } from './features/excluded-columns.ts';
export { featureSources, type FeatureSource, type FeatureSourceOptions } from './features/sources.ts';
export type { Feature } from './features/derive.ts';
export { countMembers, partSql, PART } from './data/labels.ts';
export { DEFAULT_SAMPLE, type SampleLimits } from './data/sample.ts';
export { marginSql, probabilitySql, type TrainedModel } from './compile/sql.ts';
export { runModel, type ModelRunInput, type ModelRunMetrics, type ModelRunResult, type StoredModel } from './run.ts';
export { runPropensity, type PropensityInput } from './propensity.ts';
export { runSimilarity, type SimilarityInput } from './similarity.ts';
export { defaultTargetSize, resolveTargetSize, TARGET_CAP, TARGET_MAX_SHARE, TARGET_MULTIPLE } from './target-size.ts';
export type { HoldoutMetrics, DecileLift } from './metrics/holdout.ts';
export type { FeatureImportance, Importances } from './metrics/importance.ts';
export type { CandidateReport } from './train/select.ts';
export {
  parseSeedDescription,
  type SeedDescriptionParse,
  type SeedFilter,
  type SeedFilterOp,
  type SeedFilterValue,
  type UnderstoodPhrase,
} from './seed-description/parse.ts';
