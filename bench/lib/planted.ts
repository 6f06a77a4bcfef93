/**
 * Planted ground truth for the model benchmarks, kept beside the graph (Parquet side files), never
 * in the release.
 *
 * Outcome (propensity): y ~ Bernoulli(sigmoid(b0 + OUTCOME)) with OUTCOME a stated logistic model of
 * five catalog attributes; b0 is solved by bisection so the prevalence is 5%. The "oracle" scores
 * every person with the true probability: its AUC is the best any model can reach.
 *
 * Sub-population (similarity): persons ranked by a score of attribute structure plus noise; the top
 * 2% are the planted sub-population. A seed is drawn from it by a hash.
 */
import { partSql } from '../../src/modelling/data/labels.ts';
import type { ModelWarehouse } from '../../src/modelling/types.ts';
import { INTERESTS, PURCHASE_BEHAVIORS } from '../../src/graph/vocab.ts';

const interest = (name: string) => `((interests_mask >> ${INTERESTS.indexOf(name)}) & 1)`;
const behavior = (name: string) => `((purchase_behaviors_mask >> ${PURCHASE_BEHAVIORS.indexOf(name)}) & 1)`;

/** The stated model (log-odds) of the planted outcome, without its intercept. */
export const OUTCOME_LOGIT = `0.05 * (coalesce(age, 40) - 45)
  + 1.0 * coalesce(homeowner::INT, 0)
  + 1.2 * ${interest('golf')}
  + 0.6 * coalesce(presence_of_children::INT, 0)
  + 0.3 * coalesce(list_position(['lt_25k', '25k_50k', '50k_75k', '75k_100k', '100k_150k', '150k_250k', '250k_plus'], income_band) - 1, 0)`;
export const OUTCOME_STATED =
  'logit P(y) = b0 + 0.05 (age - 45) + 1.0 homeowner + 1.2 [interests has golf] + 0.6 presence_of_children + 0.3 (income band index 0..6)';

/** Attribute structure of the planted sub-population (plus N(0, 0.5) noise per person). */
export const SUBPOP_SCORE = `1.5 * (age BETWEEN 25 AND 39)::INT
  + 1.2 * ${interest('fitness')} + 1.0 * ${interest('running')} + 0.8 * ${interest('yoga')}
  + 0.9 * coalesce(income_band IN ('100k_150k', '150k_250k', '250k_plus'), false)::INT
  + 0.8 * ${behavior('organic_food')} + 0.6 * coalesce(dwelling_type = 'multi_family', false)::INT`;
export const SUBPOP_STATED =
  'top 2% of 1.5 [age 25-39] + 1.2 fitness + 1.0 running + 0.8 yoga + 0.9 [income >= 100k] + 0.8 organic_food + 0.6 multi_family + N(0, 0.5)';

const u = (f: string) => `((hash(person_key, '${f}', 42::BIGINT) >> 11)::DOUBLE / 9007199254740992.0)`;

export interface Planted {
  labelsPath: string;
  positivesPath: string;
  prevalence: number;
  intercept: number;
}

/** Writes labels.parquet (person_key, p_oracle, outcome) and positives.parquet (outcome = 1). */
export async function plantOutcome(wh: ModelWarehouse, dir: string, prevalence = 0.05): Promise<Planted> {
  await wh.query(`CREATE OR REPLACE TABLE bench_logit AS SELECT person_key, (${OUTCOME_LOGIT})::DOUBLE AS z FROM graph.discovery_persons`);
  let lo = -20;
  let hi = 20;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    const [r] = await wh.query<{ m: number }>(`SELECT avg(1 / (1 + exp(-(${mid} + z)))) AS m FROM bench_logit`);
    if (r!.m < prevalence) lo = mid;
    else hi = mid;
  }
  const b0 = (lo + hi) / 2;
  const labelsPath = `${dir}/labels.parquet`;
  const positivesPath = `${dir}/positives.parquet`;
  await wh.query(`COPY (SELECT person_key, 1 / (1 + exp(-(${b0} + z))) AS p_oracle,
      ${u('outcome')} < 1 / (1 + exp(-(${b0} + z))) AS outcome FROM bench_logit ORDER BY person_key) TO '${labelsPath}' (FORMAT parquet)`);
  await wh.query(
    `COPY (SELECT person_key FROM read_parquet('${labelsPath}') WHERE outcome ORDER BY person_key) TO '${positivesPath}' (FORMAT parquet)`,
  );
  await wh.query('DROP TABLE bench_logit');
  const [r] = await wh.query<{ m: number }>(`SELECT avg(outcome::INT) AS m FROM read_parquet('${labelsPath}')`);
  return { labelsPath, positivesPath, prevalence: r!.m, intercept: b0 };
}

/** AUC and top-decile lift of the oracle on the run's holdout part. */
export async function oracleOnHoldout(wh: ModelWarehouse, labelsPath: string, seed: number): Promise<{ auc: number; lift: number }> {
  const [r] = await wh.query<{ auc: number; lift: number }>(`
    WITH h AS (SELECT person_key, p_oracle AS s, outcome AS y FROM read_parquet('${labelsPath}') WHERE ${partSql('person_key', seed)} = 2),
    g AS (SELECT s, count(*) FILTER (WHERE y) AS pos, count(*) FILTER (WHERE NOT y) AS neg FROM h GROUP BY s),
    c AS (SELECT *, coalesce(sum(neg) OVER (ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below FROM g),
    r AS (SELECT y, row_number() OVER (ORDER BY s DESC, hash(person_key)) AS rn, count(*) OVER () AS n FROM h)
    SELECT (SELECT sum(pos * (below + neg / 2.0)) / (sum(pos) * sum(neg)) FROM c) AS auc,
      (SELECT avg(y::INT) FILTER (WHERE rn * 10 <= n) / avg(y::INT) FROM r) AS lift`);
  return { auc: r!.auc, lift: r!.lift };
}

/** Writes subpop.parquet (the planted 2%) and seed.parquet (seedSize persons drawn from it). */
export async function plantSubpopulation(wh: ModelWarehouse, dir: string, share = 0.02, seedSize = 5000) {
  const subpopPath = `${dir}/subpop.parquet`;
  const seedPath = `${dir}/seed.parquet`;
  const noise = `(${u('sp1')} + ${u('sp2')} + ${u('sp3')} - 1.5) * 1.0`;
  await wh.query(`COPY (
    SELECT person_key FROM (SELECT person_key, (${SUBPOP_SCORE}) + ${noise} AS s FROM graph.discovery_persons)
    QUALIFY row_number() OVER (ORDER BY s DESC, person_key) <= (SELECT round(count(*) * ${share}) FROM graph.discovery_persons)
    ORDER BY person_key) TO '${subpopPath}' (FORMAT parquet)`);
  await wh.query(`COPY (SELECT person_key FROM read_parquet('${subpopPath}') ORDER BY hash(person_key, 'seed', 42::BIGINT) LIMIT ${seedSize})
    TO '${seedPath}' (FORMAT parquet)`);
  return { subpopPath, seedPath };
}
