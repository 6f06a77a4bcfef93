/**
 * How many persons a similarity or propensity segment holds when the caller gives no `target_size`:
 * ten times the seed (or positive class), at most 1,000,000, and at most a quarter of the candidates
 * (a "lookalike" of half the graph is not one), never fewer than one person. An explicit size must be
 * a positive integer and is cut to the candidates there are. docs/decisions/024-model-engine.md.
 */
import { ModelInputError } from './errors.ts';

export const TARGET_MULTIPLE = 10;
export const TARGET_CAP = 1_000_000;
export const TARGET_MAX_SHARE = 0.25;

export function defaultTargetSize(labelled: number, candidates: number): number {
  const bound = Math.min(TARGET_CAP, Math.floor(candidates * TARGET_MAX_SHARE));
  return Math.max(Math.min(1, candidates), Math.min(TARGET_MULTIPLE * labelled, bound));
}

export function resolveTargetSize(requested: number | null | undefined, labelled: number, candidates: number): number {
  if (requested === null || requested === undefined) return defaultTargetSize(labelled, candidates);
  if (!Number.isSafeInteger(requested) || requested < 1) {
    throw new ModelInputError('INVALID_MODEL_INPUT', `target_size must be a positive integer; got ${String(requested)}.`);
  }
  return Math.min(requested, candidates);
}
