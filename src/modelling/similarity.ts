/**
 * Similarity (lookalike) segments as positive-unlabelled learning: the seed's members are the
 * positives, a random sample of the rest of the graph the unlabelled class, trained with the same
 * trainers as propensity. The classifier estimates P(seed | attributes), which orders persons as
 * "how much like the seed" does; the segment is the best-scored persons outside the seed.
 * A seed given as a description is parsed to filters first (seed-description/), and its members
 * are the persons matching them.
 */
import { runModel, type ModelRunInput, type ModelRunResult } from './run.ts';
import type { MemberSet, ModelWarehouse } from './types.ts';

export interface SimilarityInput extends Omit<ModelRunInput, 'labelled'> {
  /** Members of `seed_segment_id`, or the persons matching the parsed `seed_description`. */
  seed: MemberSet;
}

export function runSimilarity(wh: ModelWarehouse, input: SimilarityInput): Promise<ModelRunResult> {
  const { seed, ...rest } = input;
  return runModel(wh, { ...rest, labelled: seed }, { purpose: 'similarity', excludeLabelled: true });
}
