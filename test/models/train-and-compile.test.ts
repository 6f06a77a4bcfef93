/**
 * Trainers and the SQL compiler on a hand-made persons table (in-memory DuckDB, 12k rows): the
 * compiled SQL must score every row exactly as the trainer does in JS, logistic regression must
 * recover a planted model, trees must find an interaction logistic regression cannot, respect the
 * leaf-size floor and be deterministic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLabels } from '../../src/modelling/data/labels.ts';
import { drawSample } from '../../src/modelling/data/sample.ts';
import { deriveFeatures, DEFAULT_DERIVE, type Feature } from '../../src/modelling/features/derive.ts';
import { encodeDesign, type Design } from '../../src/modelling/features/design.ts';
import { pullRawSample, rawSelectList, type RawSample } from '../../src/modelling/features/raw.ts';
import { featureSources } from '../../src/modelling/features/sources.ts';
import { marginSql } from '../../src/modelling/index.ts';
import { rocAuc } from '../../src/modelling/metrics/auc.ts';
import { binNumeric, numericThresholds } from '../../src/modelling/train/bins.ts';
import { DEFAULT_BOOST, trainBoosted, type BoostedModel } from '../../src/modelling/train/gbdt.ts';
import { logisticMargins, trainLogistic } from '../../src/modelling/train/logistic.ts';
import { leafOf, predictTree } from '../../src/modelling/train/tree.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { createPersons, duckWarehouse, type DuckWarehouse } from './duck-warehouse.ts';

const COLUMNS = ['age', 'homeowner', 'income_band', 'interests', 'moved_in', 'home_value', 'state'];
const sources = featureSources(CATALOG_FIELDS).filter((s) => COLUMNS.includes(s.field));

interface Fixture {
  wh: DuckWarehouse;
  raw: RawSample;
  features: Feature[];
  train: Design;
  valid: Design;
  all: Design;
}

async function fixture(xor: boolean): Promise<Fixture> {
  const wh = await duckWarehouse();
  await createPersons(wh, 12_000, { xor });
  await wh.query('CREATE TABLE labels AS SELECT person_key FROM persons WHERE y');
  const counts = await countLabels(wh, 'persons', 'labels', 7);
  const raw = await drawSample(wh, 'persons', 'labels', 7, counts, { positives: 1e6, negatives: 1e6 }, sources);
  const features = deriveFeatures(sources, raw, DEFAULT_DERIVE);
  const ones = new Float64Array(raw.n).fill(1);
  const rows = (part: number) => Array.from({ length: raw.n }, (_, i) => i).filter((i) => raw.part[i] === part);
  const everyone = await pullRawSample(
    wh,
    `SELECT 0 AS part, p.y, ${rawSelectList(sources, 'p')} FROM persons p ORDER BY p.person_key`,
    sources,
  );
  return {
    wh,
    raw,
    features,
    train: encodeDesign(features, raw, rows(0), ones),
    valid: encodeDesign(features, raw, rows(1), ones),
    all: encodeDesign(
      features,
      everyone,
      Array.from({ length: everyone.n }, (_, i) => i),
      new Float64Array(everyone.n).fill(1),
    ),
  };
}

function treeMargins(model: BoostedModel, train: Design, d: Design): Float64Array {
  const thresholds = numericThresholds(train);
  const bins = binNumeric(d, thresholds);
  const out = new Float64Array(d.n).fill(model.base);
  for (const tree of model.trees) for (let i = 0; i < d.n; i++) out[i]! += predictTree(tree, d, bins, thresholds, i);
  return out;
}

async function sqlMargins(wh: DuckWarehouse, sql: string): Promise<number[]> {
  const rows = await wh.query<{ m: number }>(`SELECT ${sql} AS m FROM persons p ORDER BY p.person_key`);
  return rows.map((r) => r.m);
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i]!)));

describe('linear planted model', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture(false);
  });
  afterAll(() => f.wh.close());

  it('derives the features the catalog names', () => {
    const names = f.features.map((x) => x.name);
    expect(names.slice(0, 3)).toEqual(['age', 'moved_in', 'home_value']);
    expect(names).toEqual(
      expect.arrayContaining([
        'age:missing',
        'homeowner',
        'homeowner:missing',
        'income_band=250k_plus',
        'state=CA',
        'interests=golf',
        'interests=fitness',
        'interests=yoga',
      ]),
    );
  });

  it('logistic regression recovers the planted weights and the SQL expression scores exactly as JS', async () => {
    const model = trainLogistic(f.features, f.train);
    const weight = (name: string) => model.coefficients[f.features.findIndex((x) => x.name === name)]!;
    expect(weight('interests=golf')).toBeCloseTo(1.2, 0);
    expect(weight('homeowner')).toBeCloseTo(0.8, 0);
    expect(Math.abs(weight('interests=fitness'))).toBeLessThan(0.25);
    expect(weight('income_band=250k_plus') - weight('income_band=lt_25k')).toBeCloseTo(1.2, 0);
    expect(maxDiff(logisticMargins(model, f.features, f.all), await sqlMargins(f.wh, marginSql(model, f.features)))).toBeLessThan(1e-9);
  });

  it('boosted trees score in SQL exactly as in JS, keep leaves above the floor and repeat themselves', async () => {
    const params = { ...DEFAULT_BOOST, maxTrees: 40, minLeafRows: 150, seed: 3 };
    const { model } = trainBoosted(f.train, f.valid, params);
    expect(model.trees.length).toBeGreaterThan(5);
    expect(maxDiff(treeMargins(model, f.train, f.all), await sqlMargins(f.wh, marginSql(model, f.features)))).toBeLessThan(1e-9);
    const thresholds = numericThresholds(f.train);
    const bins = binNumeric(f.train, thresholds);
    for (const tree of model.trees) {
      const perLeaf = new Map<number, number>();
      for (let i = 0; i < f.train.n; i++) {
        const l = leafOf(tree, f.train, bins, thresholds, i);
        perLeaf.set(l, (perLeaf.get(l) ?? 0) + 1);
      }
      // Subsampling: a leaf was fitted on >= 150 sampled rows, so holds well over 100 of all rows.
      expect(Math.min(...perLeaf.values())).toBeGreaterThan(100);
    }
    expect(trainBoosted(f.train, f.valid, params).model).toEqual(model);
  });

  it('stops adding trees once they hold the split-node budget', () => {
    const { model } = trainBoosted(f.train, f.valid, {
      ...DEFAULT_BOOST,
      maxTrees: 200,
      patience: 200,
      maxSplitNodes: 40,
      minSplitGain: 0,
      minLeafRows: 50,
    });
    const splits = model.trees.map((t) => t.filter((n) => 'f' in n).length);
    expect(splits.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(40);
    expect(splits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(40);
  });

  it('a split gain threshold stops trees on labels that are noise', () => {
    const noise = { ...f.train, y: Uint8Array.from(f.train.y, (_, i) => ((Math.imul(i, 2654435761) >>> 0) % 7 === 0 ? 1 : 0)) };
    const { model } = trainBoosted(noise, f.valid, { ...DEFAULT_BOOST, maxTrees: 20, minSplitGain: 20, minLeafRows: 50 });
    expect(model.trees.every((t) => t.length === 1)).toBe(true);
  });
});

describe('interaction', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture(true);
  });
  afterAll(() => f.wh.close());

  it('trees find what logistic regression cannot', () => {
    const lr = trainLogistic(f.features, f.train);
    const { model, validationMargins } = trainBoosted(f.train, f.valid, { ...DEFAULT_BOOST, maxTrees: 60, minLeafRows: 50 });
    const aucLr = rocAuc(logisticMargins(lr, f.features, f.valid), f.valid.y);
    const aucTrees = rocAuc(validationMargins, f.valid.y);
    expect(model.trees.length).toBeGreaterThan(1);
    expect(aucTrees).toBeGreaterThan(aucLr + 0.05);
  });
});
