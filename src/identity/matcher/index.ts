/** Public surface of the matching engine (issue #5). */
export * from './types.ts';
export { createMatcher, type Matcher, type MatcherDeps, type MatchWarehouse, type StagedDecision } from './matcher.ts';
export { createStageWriter, type StagedFile, type StageWriter } from './stage.ts';
export { createStagePool, defaultStageThreads, type StagePool } from './stage-pool.ts';
export type { StagedLines } from './stage-lines.ts';
export { scoreCandidate } from './score.ts';
export { buildMatchIndex, matchIndexPath, MATCH_INDEX_VERSION, type BuildMatchIndexOptions } from './index-sidecar.ts';
export { decideRow, individualType, type ScoredCandidate, type Decision } from './levels.ts';
export { WEIGHTS, LOGIT_A, LOGIT_B, I_THRESHOLD, matchWeight, probability } from './model.ts';
export { jaroWinkler, compareRecord } from './compare.ts';
export { warmMatchIndex, type WarmOptions, type WarmResult } from './warm.ts';
export { splitLookup } from './point.ts';
export { dictTable, plainColumn, wordColumn, PACK_MAX_DISTINCT, type PackedColumn } from './attr-pack.ts';
export { readEnrichment, warmEnrichment, decode, type EnrichmentReader } from './enrichment.ts';
