/**
 * The training and validation sample, drawn in one scan of the persons table and streamed to JS.
 *
 * Case-control (stratified by label): labelled persons and the rest are each kept at their own rate
 * (a hash of the person key under a per-million threshold, so no sort), the rates set so the train
 * part holds at most SampleLimits of each; the validation part uses the same rates, so both parts have
 * the same class mix. At 5% prevalence a plain sample of 200k holds 10k positives; this one up to 50k.
 *
 * The trainers fit the sample unweighted (every row counts 1, so split gains and Hessian minimums
 * mean the same whatever the seed size) and the model's intercept is then moved by the prior
 * correction  logit(population prevalence) - logit(sample prevalence)  (priorOffset), the standard
 * adjustment for case-control sampling: scores become probabilities for the population again and
 * the ranking does not change. For similarity the "rest" is the unlabelled graph
 * (positive-unlabelled learning): the model estimates P(seed | attributes).
 */
import type { FeatureSource } from '../features/sources.ts';
import { pullRawSample, rawSelectList, type RawSample } from '../features/raw.ts';
import type { ModelWarehouse } from '../types.ts';
import { partSql, type LabelCounts } from './labels.ts';

/** Largest number of labelled / other persons in the train part (validation: the same rates). */
export interface SampleLimits {
  positives: number;
  negatives: number;
}

export const DEFAULT_SAMPLE: SampleLimits = { positives: 50_000, negatives: 150_000 };

const PER = 1_000_000;

/** Per-million keep thresholds for [labelled, other], from the train part's counts. */
export function keepThresholds(counts: LabelCounts, l: SampleLimits): [number, number] {
  const rate = (limit: number, n: number) => (n <= limit ? PER : Math.ceil((limit / n) * PER));
  return [rate(l.positives, counts.parts[0]!.pos), rate(l.negatives, counts.parts[0]!.neg)];
}

export async function drawSample(
  wh: ModelWarehouse, persons: string, labels: string, seed: number, counts: LabelCounts, limits: SampleLimits, sources: readonly FeatureSource[],
): Promise<RawSample> {
  const [keepPos, keepNeg] = keepThresholds(counts, limits);
  const cols = rawSelectList(sources, 'p');
  const part = partSql('p.person_key', seed);
  const sql = `
    SELECT ${part} AS part, l.person_key IS NOT NULL AS y${cols ? `, ${cols}` : ''}
    FROM ${persons} p LEFT JOIN ${labels} l ON l.person_key = p.person_key
    WHERE ${part} < 2
      AND hash(p.person_key, ${Math.trunc(seed)}::BIGINT, 'sample') % ${PER} < CASE WHEN l.person_key IS NOT NULL THEN ${keepPos} ELSE ${keepNeg} END
    ORDER BY p.person_key`;
  return pullRawSample(wh, sql, sources);
}

/** logit(population prevalence) - logit(sample prevalence) of the train part: added to the margin. */
export function priorOffset(raw: RawSample, counts: LabelCounts): number {
  let pos = 0;
  let n = 0;
  for (let i = 0; i < raw.n; i++) if (raw.part[i] === 0) { n++; pos += raw.y[i]!; }
  const logit = (p: number) => Math.log(p / (1 - p));
  const population = counts.parts[0]!.pos / (counts.parts[0]!.pos + counts.parts[0]!.neg);
  if (pos === 0 || pos === n || population <= 0 || population >= 1) return 0;
  return logit(population) - logit(pos / n);
}
