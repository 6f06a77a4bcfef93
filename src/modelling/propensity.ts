/**
 * Propensity segments: the persons most likely to belong to the positive class, by a classifier of
 * positive-class members against everyone else. The positive class stays eligible for the segment
 * unless the caller asks otherwise (a propensity segment is "who looks like a buyer", and buyers do).
 */
import { runModel, type ModelRunInput, type ModelRunResult } from './run.ts';
import type { MemberSet, ModelWarehouse } from './types.ts';

export interface PropensityInput extends Omit<ModelRunInput, 'labelled'> {
  /** Members of `positive_class_segment_id`. */
  positiveClass: MemberSet;
  /** Leave positive-class members out of the segment. Default false. */
  excludePositiveClass?: boolean;
}

export function runPropensity(wh: ModelWarehouse, input: PropensityInput): Promise<ModelRunResult> {
  const { positiveClass, excludePositiveClass, ...rest } = input;
  return runModel(wh, { ...rest, labelled: positiveClass }, { purpose: 'propensity', excludeLabelled: excludePositiveClass ?? false });
}
