/**
 * Fitted matching parameters recorded beside a release (`<release>.match-params.json`, written by
 * `ads matching refit`, refit.ts): u, m, lambda, the weights log2(m/u), the term-frequency tables,
 * the logistic that maps a weight to match_confidence and the I threshold. The file makes a release's
 * scores reproducible. The matcher scores with the file's weights, logistic and I threshold when
 * `scorer` is "fitted" (what the refit writes); with "prior" (--record-only), or without a file, it
 * keeps model.ts WEIGHTS / LOGIT_A / LOGIT_B / I_THRESHOLD (docs/decisions/045-fitted-match-parameters.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIELDS, tfAdjustment, type LevelTable, type TfTable } from './estimate.ts';
import { I_THRESHOLD, matchWeight, probability, WEIGHTS, type WeightTable } from './model.ts';
import { DOB, FIRST, LAST, type Features } from './types.ts';

export const MATCH_PARAMS_FORMAT = 1;

export interface MatchParams {
  format: typeof MATCH_PARAMS_FORMAT;
  /** Release file name the parameters were fitted on. */
  release: string;
  fitted_at: string;
  /** "fitted": the matcher scores with `weights` / `logistic`; "prior": with model.ts (recorded only). */
  scorer: 'fitted' | 'prior';
  sample: { seed: number; persons: number; random_pairs: number; list_rows: number; blocked_pairs: number };
  u: LevelTable;
  m: LevelTable;
  lambda: number;
  em: { iterations: number; converged: boolean };
  weights: LevelTable;
  tf: { first: TfTable; last: TfTable; u_exact: { first: number; last: number } };
  /**
   * The fitted scorer adds the term-frequency adjustment of `tf` to an exact first- or last-name agreement
   * (the logistic and the I threshold were fitted on weights with it). Absent in files written before the
   * scorer applied TF: read as false, so such a file scores exactly as it was recorded.
   */
  tf_applied?: boolean;
  logistic: { a: number; b: number; pairs: number; positives: number };
  /**
   * The I threshold of the fitted scorer: the calibrated probability at `weight`, the lowest weight at
   * which I on the refit list keeps precision >= I_TARGET.precision and absent people at I <= I_TARGET.absent;
   * with the list's figures there.
   */
  i_threshold: { probability: number; weight: number; precision: number; recall: number; absent: number };
}

/** `<release>.match-params.json` next to the release file. */
export function matchParamsPath(releaseFile: string): string {
  return releaseFile.replace(/\.duckdb$/, '') + '.match-params.json';
}

/** The params file of the release a match index sidecar (`<release>.match-vN.duckdb`) belongs to. */
export function paramsPathOfIndex(indexPath: string): string {
  return indexPath.replace(/\.match-v[0-9]+\.duckdb$/, '') + '.match-params.json';
}

export function writeMatchParams(file: string, params: MatchParams): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(params, null, 1) + '\n');
  fs.renameSync(tmp, file);
}

function isLevelTable(t: unknown): t is LevelTable {
  if (!t || typeof t !== 'object') return false;
  return FIELDS.every((f) => {
    const v = (t as Record<string, unknown>)[f];
    return Array.isArray(v) && v.length === WEIGHTS[f].length && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  });
}

/**
 * dob weights of a file written before the dob levels were split ([missing, exact, partial, disagree]):
 * each of the three near levels (one digit off, day-month swapped, same year and month) takes the old
 * partial weight. u and m stay as recorded (they describe the old levels); a refit estimates the new ones.
 */
export function upgradeDobWeights(weights: LevelTable): LevelTable {
  const dob = weights?.dob;
  if (!Array.isArray(dob) || dob.length !== 4) return weights;
  const [missing, exact, partial, disagree] = dob as [number, number, number, number];
  const out = [missing, exact, 0, 0, 0, disagree];
  out[DOB.digit] = out[DOB.swap] = out[DOB.yearMonth] = partial;
  return { ...weights, dob: out };
}

/**
 * Levels appended since a file was written (email `near`, first name `fuzzyLow`, surname `phonetic` and `fuzzyLow`, dob `month` and `year`, address `house`) take the
 * prior weight of model.ts, so a release refitted before them scores as recorded plus the new levels' priors.
 */
export function appendNewLevels(weights: LevelTable): LevelTable {
  if (!weights || typeof weights !== 'object') return weights;
  const out = { ...weights };
  for (const f of ['email', 'first', 'last', 'dob', 'address'] as const) {
    const w = out[f];
    if (Array.isArray(w) && w.length < WEIGHTS[f].length) out[f] = [...w, ...WEIGHTS[f].slice(w.length)];
  }
  return out;
}

/** The params of a file, or null when it is absent; a malformed file is an error (never silently ignored). */
export function readMatchParams(file: string): MatchParams | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const p = JSON.parse(text) as MatchParams;
  if (p && typeof p === 'object' && p.weights) p.weights = appendNewLevels(upgradeDobWeights(p.weights));
  if (
    p.format !== MATCH_PARAMS_FORMAT ||
    !isLevelTable(p.weights) ||
    typeof p.logistic?.a !== 'number' ||
    typeof p.logistic?.b !== 'number' ||
    typeof p.i_threshold?.probability !== 'number'
  ) {
    throw new Error(`${file}: not a match parameters file of format ${MATCH_PARAMS_FORMAT}`);
  }
  return p;
}

/** How a candidate's features become a weight and a confidence. */
export interface Scoring {
  /**
   * The match weight of a candidate. `first` / `last`: the row's own normalized names (as compared); the
   * fitted scorer with TF looks an exact agreement's value up in them (equal to the graph's at an exact
   * agreement; crosswise, the row name that agreed). Ignored by scorers without TF.
   */
  weight(f: Features, first?: string | null, last?: string | null): number;
  probability(w: number): number;
  /** Minimum probability of an I match (levels.ts decideRow). */
  iThreshold: number;
  /**
   * The term-frequency lookups of a scorer whose weight() adds them: weight(f, first, last) is then exactly
   * weight(f, null, null) + tfBits(f, first, last, tf.first, tf.last) (packed-rows.ts caches the first term).
   * A scorer without it ignores the names.
   */
  tf?: { first: (value: string) => number; last: (value: string) => number };
}

export const PRIOR_SCORING: Scoring = { weight: (f) => matchWeight(f), probability: (w) => probability(w), iThreshold: I_THRESHOLD };

/** value -> tfAdjustment(table, value, uExact), precomputed for the listed values (a scorer looks up millions). */
export function tfLookup(table: TfTable, uExact: number): (value: string) => number {
  const listed = new Map<string, number>();
  for (const v of Object.keys(table.shares)) listed.set(v, tfAdjustment(table, v, uExact));
  const unlisted = tfAdjustment({ ...table, shares: {} }, '', uExact);
  return (v) => listed.get(v) ?? unlisted;
}

/**
 * Bits the TF adjustment adds to features `f` of a row named (first, last): an exact first-name agreement
 * adds the first-name table's adjustment of the value that agreed (the row's first name, or its last name
 * when the names agreed crosswise), an exact surname the surname table's likewise. Other levels: 0.
 */
export function tfBits(
  f: Features,
  first: string | null | undefined,
  last: string | null | undefined,
  tfFirst: (v: string) => number,
  tfLast: (v: string) => number,
): number {
  let bits = 0;
  const asFirst = f.swapped ? last : first;
  const asLast = f.swapped ? first : last;
  if (f.first === FIRST.exact && asFirst) bits += tfFirst(asFirst);
  if (f.last === LAST.exact && asLast) bits += tfLast(asLast);
  return bits;
}

/** The scoring a params file selects (model.ts priors unless its scorer is "fitted"; TF when it says tf_applied). */
export function scoringOf(params: MatchParams | null): Scoring {
  if (!params || params.scorer !== 'fitted') return PRIOR_SCORING;
  const w = params.weights as WeightTable;
  const { a, b } = params.logistic;
  const base = { probability: (x: number) => probability(x, a, b), iThreshold: params.i_threshold.probability };
  if (!params.tf_applied) return { ...base, weight: (f) => matchWeight(f, w) };
  const tfFirst = tfLookup(params.tf.first, params.tf.u_exact.first);
  const tfLast = tfLookup(params.tf.last, params.tf.u_exact.last);
  return {
    ...base,
    weight: (f, first, last) => matchWeight(f, w) + tfBits(f, first, last, tfFirst, tfLast),
    tf: { first: tfFirst, last: tfLast },
  };
}

/** Scoring of the release a match index belongs to. */
export function scoringOfIndex(indexPath: string): Scoring {
  return scoringOf(readMatchParams(paramsPathOfIndex(indexPath)));
}
