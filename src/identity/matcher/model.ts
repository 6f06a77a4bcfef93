/**
 * The Fellegi-Sunter model: per-field agreement weights log2(m/u) and a logistic mapping from the
 * summed weight to a calibrated probability.
 *
 * m = P(level | true match), u = P(level | non-match), both estimated over *candidate pairs*
 * (rows x persons that share at least one blocking key), because those are the pairs the engine
 * has to tell apart; a non-match that shares a surname and ZIP is far likelier to agree on first
 * name than a random pair, and u must reflect that.
 *
 * STATUS: WEIGHTS are hand-set priors (u from population frequencies: emails and phones are
 * near-unique, an address is shared by ~2.3 people, first names by ~1-3%). Refitting u from blocked
 * candidate pairs is biased (a pair found by the dob+first block agrees on dob and first name by
 * construction); a refit of WEIGHTS needs u from random pairs and has not been done. The logistic
 * (LOGIT_A, LOGIT_B) IS fitted, see below; it absorbs the overall scale of the weights.
 */
import type { Features } from './types.ts';

// ---- fitted constants (paste from `bench/match-quality.ts --fit`) ----------------------------
/** log2(m/u) per level, indexed by the level number of types.ts (index 0 = missing = 0). */
export const WEIGHTS = {
  // agree, disagree, near (a one-typo email of the same name, types.ts EMAIL)
  email: [0, 11.0, -2.0, 6.0],
  phone: [0, 10.5, -1.5],
  // exact, nickname, Jaro-Winkler >= 0.9, initial, disagree, Jaro-Winkler 0.8-0.9
  first: [0, 4.5, 4.0, 3.5, 0.5, -4.5, 0.5],
  // exact, fuzzy, disagree, phonetic (same Soundex, not fuzzy), Jaro-Winkler 0.8-0.9 (not phonetic)
  last: [0, 3.5, 3.0, -4.0, 1.5, 0.5],
  // exact, one digit off, day-month swapped, same year and month (each the former "partial" 3.0), disagree,
  // only year and month given and agreeing, only the year given and agreeing
  dob: [0, 9.0, 3.0, 3.0, 3.0, -4.0, 5.0, 2.0],
  // unit, street, history, ZIP, disagree, house number + ZIP (the street spelled otherwise)
  address: [0, 6.5, 5.5, 6.0, 0.5, -1.0, 5.0],
};
/** Subtracted when the names only agree crosswise (first <-> last). */
export const SWAP_PENALTY = 0.5;
/**
 * p = 1 / (1 + exp(-(LOGIT_A * weight + LOGIT_B))), fitted (was hand-set 0.6 / -5.7, under-confident:
 * p 0.65 -> 0.92 observed, 0.71 -> 1.00).
 * Fit: `npx tsx bench/match-quality.ts --fit` (defaults --persons 200000 --rows 40000 --seed 11; graph
 * seed 7, .bench/match-data). Rows split in random halves (rng(seed*7919+1)); on the training half
 * (20,052 rows), per row the best-weighted candidate whose probability the engine can report
 * (fit.ts reportableCandidate: person-level evidence or an agreeing email/phone), label = it is the
 * true person: 16,341 candidates, 16,253 true. Logistic regression on its weight by Newton/IRLS with
 * Platt's smoothed targets (fit.ts fitPlatt). Calibration of the reported I + D confidence on the
 * held-out half (19,948 rows), same levels and thresholds:
 *
 *   p bin           hand-set 0.6/-5.7             fitted
 *   [0.500, 0.700)  n= 1265 p=0.6457 obs=0.9178   -
 *   [0.700, 0.800)  n= 1093 p=0.7109 obs=1.0000   -
 *   [0.900, 0.950)  n= 2473 p=0.9329 obs=1.0000   n= 1265 p=0.9478 obs=0.9178  (phone only, D)
 *   [0.950, 0.990)  n= 4561 p=0.9634 obs=1.0000   n= 1093 p=0.9797 obs=1.0000  (email only, D)
 *   [0.990, 0.999)  n= 2639 p=0.9961 obs=0.9996   -
 *   [0.999, 1.000]  n= 4157 p=0.9998 obs=1.0000   n=13829 p=1.0000 obs=0.9999  (I)
 *   Brier                0.01854                       0.00606
 *   ECE                  0.06195                       0.00376
 *
 * Held-out I precision 1.0000, I recall (rows with person-level evidence) 0.9635 -> 0.9634, absent
 * people at I 0/1598 -> 0/1598. The fit moves the weight at which p reaches I_THRESHOLD (0.9) from
 * 13.16 down to 10.14: on the training half this admits one extra I row, an absent person with
 * first + fuzzy last + dob agreeing and email, phone and address disagreeing (w = 12); the level
 * rules (name + a second group) are what keep weaker evidence out, not the threshold.
 * Residual miscalibration: phone-only rows (shared landlines) are ~3 points over-confident and
 * email-only rows ~2 points under-confident; one slope over the summed weight cannot separate them
 * (that needs the per-field u refit).
 */
export const LOGIT_A = 1.9538;
export const LOGIT_B = -17.6163;
/**
 * Observed precision of the levels that are not a single-person decision (H, A, S): their
 * reported confidence is how often a row of that type was right in the labelled set.
 */
export const LEVEL_CONFIDENCE = { H: 0.99, A: 0.99, spatial_residential: 0.1, spatial_work: 0.02 };
// -----------------------------------------------------------------------------------------------

/**
 * Minimum calibrated probability for an individual-level (I) match. 0.999 (summed weight about 12.5):
 * with the fitted curve, 0.9 would be reached at weight 10.1 and admitted an absent person whose first
 * name, dob and fuzzy surname agreed against a disagreeing email, phone and address (weight 12);
 * the curve is extrapolated in that sparse band, so I keeps a margin above it.
 */
export const I_THRESHOLD = 0.999;
/**
 * Minimum probability of the one I type below I_THRESHOLD: exact full name + near dob (types.ts dobNear) + same ZIP
 * (weight 11.5, p 0.9923). Measured on the hardened set (bench/match-hardened.ts): see
 * docs/decisions/020-honest-levels.md for its precision.
 */
export const I_PARTIAL_DOB_THRESHOLD = 0.99;
/** Minimum probability for a digital (D) match (email/phone agreement alone clears it). */
export const D_THRESHOLD = 0.5;
/** Two person-level candidates closer than this (in weight) are ambiguous: demoted to H. */
export const AMBIGUITY_MARGIN = 2.0;

export type WeightTable = typeof WEIGHTS;

export function nameWeight(f: Pick<Features, 'first' | 'last' | 'swapped'>, w: WeightTable = WEIGHTS): number {
  return (w.first[f.first] ?? 0) + (w.last[f.last] ?? 0) - (f.swapped ? SWAP_PENALTY : 0);
}

export function matchWeight(f: Features, w: WeightTable = WEIGHTS): number {
  return (w.email[f.email] ?? 0) + (w.phone[f.phone] ?? 0) + nameWeight(f, w) + (w.dob[f.dob] ?? 0) + (w.address[f.address] ?? 0);
}

export function probability(weight: number, a = LOGIT_A, b = LOGIT_B): number {
  return 1 / (1 + Math.exp(-(a * weight + b)));
}

/** SQL list literal of one field's weights, indexed with `[level + 1]`. */
function sqlList(values: readonly number[]): string {
  return `([${values.map((v) => v.toFixed(6)).join(', ')}]::DOUBLE[])`;
}

/** Weight of the name pair alone, used in SQL to choose straight vs crosswise name comparison. */
export function nameWeightSql(first: string, last: string, swapped: boolean, w: WeightTable = WEIGHTS): string {
  return `(${sqlList(w.first)}[${first} + 1] + ${sqlList(w.last)}[${last} + 1]${swapped ? ` - ${SWAP_PENALTY.toFixed(6)}` : ''})`;
}
