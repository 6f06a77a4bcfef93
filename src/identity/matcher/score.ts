/**
 * Pure scoring of one (row, person) pair: the same comparators and weights the SQL engine uses,
 * without DuckDB. Unit tests and tools call this; the engine computes the same thing set-based.
 */
import type { NormalizedRecord } from '../normalize/record.ts';
import { compareRecord } from './compare.ts';
import { individualType } from './levels.ts';
import { matchWeight, probability } from './model.ts';
import type { CandidateAttributes, CandidateScore, MatchType } from './types.ts';

export function scoreCandidate(
  row: NormalizedRecord,
  candidate: CandidateAttributes,
): CandidateScore & { individualType: MatchType | null } {
  const features = compareRecord(row, candidate);
  const weight = matchWeight(features);
  const p = probability(weight);
  return { features, weight, probability: p, individualType: individualType({ features, probability: p }) };
}
