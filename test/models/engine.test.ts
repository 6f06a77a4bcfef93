/**
 * The engine end to end on a generated 20k-person graph through the real warehouse: propensity and
 * similarity segments as Parquet member sets, metrics, determinism, excluded columns, the privacy
 * floor, and a seed given as a description.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFilterGroups, type FilterGroup } from '../../src/graph/filters/index.ts';
import { membershipSql } from '../../src/graph/membership/sql.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import {
  ModelPrivacyFloorError,
  ModelTrainingError,
  countMembers,
  marginSql,
  parseSeedDescription,
  probabilitySql,
  runPropensity,
  runSimilarity,
  type MemberSet,
} from '../../src/modelling/index.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { generateTestGraph } from '../discovery/graph.ts';

let dir: string;
let wh: Warehouse;
const FLOOR = 50;
const FAST = { maxTrees: 40 };
// About 15% of persons: more likely for homeowners, golfers and older persons.
const POSITIVE: MemberSet = {
  sql: `SELECT person_key FROM graph.discovery_persons WHERE (hash('y:' || person_key::VARCHAR) % 1000) / 1000.0
    < 1 / (1 + exp(-(-3.2 + 1.2 * coalesce(homeowner::INT, 0) + 1.5 * ((interests_mask >> 13) & 1) + 0.03 * coalesce(age, 40))))`,
};
const out = (name: string) => path.join(dir, 'out', name);
const readParquet = (file: string) =>
  wh.query<{ person_key: number; score: number; rank: number }>(`SELECT * FROM read_parquet('${file}') ORDER BY rank`);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'models-'));
  await generateTestGraph(dir);
  wh = await openWarehouse({ dataDir: dir, threads: 2, memoryLimit: '1GB' });
});
afterAll(async () => {
  await wh?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function leftoverTables(): Promise<string[]> {
  return (await wh.query<{ t: string }>(`SELECT table_name AS t FROM duckdb_tables() WHERE table_name LIKE 'model_%'`)).map((r) => r.t);
}

describe('propensity', () => {
  it('writes the top-scored persons with score and rank, and metrics for the run', async () => {
    const positives = await countMembers(wh, POSITIVE);
    const r = await runPropensity(wh, {
      fields: CATALOG_FIELDS,
      positiveClass: POSITIVE,
      privacyFloor: FLOOR,
      membersPath: out('p1/members-v1.parquet'),
      modelName: 'buyers v1',
      boost: FAST,
    });
    const m = r.metrics;
    expect(m).toMatchObject({
      purpose: 'propensity',
      model_type: 'BOOSTED_TREE_CLASSIFIER',
      selected_model_type: 'BOOSTED_TREE_CLASSIFIER',
      model_name: 'buyers v1',
      privacy_floor: FLOOR,
    });
    expect(m.labelled_persons).toBe(positives);
    expect(m.graph_persons).toBe(20_000);
    expect(m.target_size).toBe(Math.min(10 * positives, 5_000));
    expect(m.holdout.roc_auc).toBeGreaterThan(0.7);
    expect(m.holdout.top_decile_lift).toBeGreaterThan(1.8);
    // The planted drivers (home_value stands in for homeowner: it is NULL exactly for renters).
    expect(['interests', 'homeowner', 'home_value', 'age']).toEqual(
      expect.arrayContaining(m.field_importance.slice(0, 3).map((f) => f.field)),
    );
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);

    const rows = await readParquet(r.membersPath);
    expect(rows).toHaveLength(m.target_size);
    expect(m.record_count).toBe(m.target_size);
    expect(rows.map((x) => x.rank)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.score).toBeLessThanOrEqual(rows[i - 1]!.score);
    expect(m.score_threshold).toBe(rows[rows.length - 1]!.score);

    // The segment reads like any materialized member set.
    const ms = membershipSql(
      {
        kind: 'composition',
        composition: {
          include: [{ kind: 'members', segmentId: 's', subtype: 'propensity', parquetPath: r.membersPath }],
          exclude: [],
          setLogic: 'union',
        },
      },
      { catalog: CATALOG_FIELDS },
    );
    expect(Number((await wh.query(ms.count, ms.params))[0]!.n)).toBe(m.target_size);

    // The stored model scores again to the same numbers.
    const stored = JSON.parse(JSON.stringify(r.model));
    const again = await wh.query<{
      person_key: number;
      s: number;
    }>(`SELECT p.person_key, ${probabilitySql(marginSql(stored.model, stored.features, 'p'))} AS s
      FROM graph.discovery_persons p WHERE p.person_key IN (${rows
        .slice(0, 20)
        .map((x) => x.person_key)
        .join(', ')})`);
    for (const a of again) expect(a.s).toBeCloseTo(rows.find((x) => x.person_key === a.person_key)!.score, 12);
    expect(await leftoverTables()).toEqual([]);
  });

  it('is deterministic for a seed and leaves excluded columns out', async () => {
    const run = (file: string) =>
      runPropensity(wh, {
        fields: CATALOG_FIELDS,
        positiveClass: POSITIVE,
        modelType: 'LOGISTIC_REG',
        excludedColumns: ',age,interests',
        privacyFloor: FLOOR,
        randomSeed: 9,
        targetSize: 700,
        membersPath: out(file),
      });
    const [a, b] = [await run('d1.parquet'), await run('d2.parquet')];
    expect(a.model).toEqual(b.model);
    expect((await readParquet(a.membersPath)).map((x) => x.person_key)).toEqual(
      (await readParquet(b.membersPath)).map((x) => x.person_key),
    );
    expect(a.metrics.record_count).toBe(700);
    expect(a.metrics.training.excluded_columns).toEqual(['age', 'interests']);
    expect(a.model.features.some((f) => f.field === 'age' || f.field === 'interests')).toBe(false);
    expect(a.metrics.features.some((f) => f.field === 'age' || f.field === 'interests')).toBe(false);
    expect(a.metrics.features.every((f) => typeof f.weight === 'number' && f.odds_ratio === Math.exp(f.weight!))).toBe(true);
    const c = await runPropensity(wh, {
      fields: CATALOG_FIELDS,
      positiveClass: POSITIVE,
      modelType: 'LOGISTIC_REG',
      privacyFloor: FLOOR,
      randomSeed: 10,
      targetSize: 700,
      membersPath: out('d3.parquet'),
    });
    expect(c.model).not.toEqual(a.model);
  });

  it('AUTOML_CLASSIFIER keeps the candidate with the best validation AUC', async () => {
    const r = await runPropensity(wh, {
      fields: CATALOG_FIELDS,
      positiveClass: POSITIVE,
      modelType: 'AUTOML_CLASSIFIER',
      privacyFloor: FLOOR,
      membersPath: out('automl.parquet'),
      boost: FAST,
    });
    const c = r.metrics.candidates;
    expect(c.map((x) => x.model_type)).toEqual(['LOGISTIC_REG', 'BOOSTED_TREE_CLASSIFIER', 'BOOSTED_TREE_CLASSIFIER']);
    const best = c.reduce((a, b) => (b.validation_auc > a.validation_auc ? b : a));
    expect(r.metrics.selected_model_type).toBe(best.model_type);
    expect(r.metrics.validation_auc).toBe(best.validation_auc);
  });
});

describe('similarity', () => {
  it('excludes the seed, from a description parsed to filters', async () => {
    const parsed = parseSeedDescription('homeowners in their 40s who golf', CATALOG_FIELDS);
    expect(parsed.unrecognized).toEqual([]);
    const groups: FilterGroup[] = [{ id: 'seed', combinator: 'AND', filters: parsed.filters }];
    const v = validateFilterGroups(groups, CATALOG_FIELDS);
    expect(v.ok).toBe(true);
    const m = membershipSql({ kind: 'filters', groups: v.ok ? v.groups : [] }, { catalog: CATALOG_FIELDS });
    const seed: MemberSet = { sql: m.select, params: m.params };
    const seedSize = await countMembers(wh, seed);
    expect(seedSize).toBeGreaterThan(FLOOR);
    const r = await runSimilarity(wh, { fields: CATALOG_FIELDS, seed, privacyFloor: FLOOR, membersPath: out('sim.parquet'), boost: FAST });
    expect(r.metrics.purpose).toBe('similarity');
    expect(r.metrics.target_size).toBe(Math.min(10 * seedSize, Math.floor((20_000 - seedSize) / 4)));
    const [overlap] = await wh.query<{ n: number }>(
      `SELECT count(*) AS n FROM read_parquet('${r.membersPath}') WHERE person_key IN (${m.select})`,
      [...m.params],
    );
    expect(overlap!.n).toBe(0);
    // Nobody outside the seed matches all three conditions; the lookalikes share most of them.
    const [shares] = await wh.query<{ golf: number; base_golf: number }>(`
      SELECT avg(((interests_mask >> 13) & 1)::INT) AS golf, (SELECT avg(((interests_mask >> 13) & 1)::INT) FROM graph.discovery_persons) AS base_golf
      FROM graph.discovery_persons WHERE person_key IN (SELECT person_key FROM read_parquet('${r.membersPath}'))`);
    expect(shares!.golf).toBeGreaterThan(3 * shares!.base_golf);
  });

  it('finds the rest of a group the seed was drawn from', async () => {
    const group = `SELECT person_key FROM graph.discovery_persons WHERE coalesce(homeowner, false) AND age BETWEEN 40 AND 49 AND (interests_mask & 8192) <> 0`;
    const seed: MemberSet = { sql: `${group} AND hash('seed:' || person_key::VARCHAR) % 10 < 6` };
    const r = await runSimilarity(wh, {
      fields: CATALOG_FIELDS,
      seed,
      privacyFloor: FLOOR,
      membersPath: out('group.parquet'),
      boost: FAST,
    });
    const [found] = await wh.query<{ hidden: number; caught: number }>(`
      WITH hidden AS (SELECT person_key FROM (${group}) g WHERE person_key NOT IN (SELECT person_key FROM (${seed.sql}) s))
      SELECT (SELECT count(*) FROM hidden) AS hidden,
        (SELECT count(*) FROM read_parquet('${r.membersPath}') WHERE person_key IN (SELECT person_key FROM hidden)) AS caught`);
    expect(found!.hidden).toBeGreaterThan(40);
    // The segment is ~6% of the graph; at random it would catch ~6% of the hidden members.
    expect(found!.caught / found!.hidden).toBeGreaterThan(0.6);
  });

  it('refuses a seed below the privacy floor and cleans up', async () => {
    const seed: MemberSet = { sql: 'SELECT person_key FROM graph.discovery_persons WHERE person_key <= $1', params: [10] };
    expect(await countMembers(wh, seed)).toBe(10);
    const err = await runSimilarity(wh, { fields: CATALOG_FIELDS, seed, privacyFloor: FLOOR, membersPath: out('tiny.parquet') }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelPrivacyFloorError);
    expect(err).toMatchObject({ code: 'AGGREGATION_FLOOR_NOT_MET', subject: 'seed', floor: FLOOR });
    const everyone: MemberSet = { sql: 'SELECT person_key FROM graph.discovery_persons WHERE person_key > $1', params: [10] };
    await expect(
      runPropensity(wh, { fields: CATALOG_FIELDS, positiveClass: everyone, privacyFloor: FLOOR, membersPath: out('all.parquet') }),
    ).rejects.toMatchObject({ subject: 'negative_class' });
    await expect(
      runPropensity(wh, {
        fields: CATALOG_FIELDS,
        positiveClass: POSITIVE,
        privacyFloor: FLOOR,
        featureTag: 'no_such_tag',
        membersPath: out('x.parquet'),
      }),
    ).rejects.toBeInstanceOf(ModelTrainingError);
    expect(fs.existsSync(out('tiny.parquet'))).toBe(false);
    expect(await leftoverTables()).toEqual([]);
  });
});
