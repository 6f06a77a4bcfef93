/**
 * Holdout metrics in SQL against a JS recomputation on the same rows, and the privacy floor on them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partSql } from '../../src/modelling/index.ts';
import { holdoutMetrics } from '../../src/modelling/metrics/holdout.ts';
import { rocAuc } from '../../src/modelling/metrics/auc.ts';
import { duckWarehouse, type DuckWarehouse } from './duck-warehouse.ts';

let wh: DuckWarehouse;
const SEED = 5;

beforeAll(async () => {
  wh = await duckWarehouse();
  // 20k persons, score rounded to 3 decimals (many ties), label more likely with the score.
  const u = (f: string) => `((hash('${f}:' || range::VARCHAR) >> 11)::DOUBLE / 9007199254740992.0)`;
  await wh.query(
    `CREATE TABLE s AS SELECT range AS person_key, round(${u('s')}, 3) AS score, ${u('y')} < 0.02 + 0.3 * round(${u('s')}, 3) ^ 3 AS y FROM range(20000)`,
  );
  await wh.query('CREATE TABLE scores AS SELECT person_key, score FROM s');
  await wh.query('CREATE TABLE labels AS SELECT person_key FROM s WHERE y');
});
afterAll(() => wh.close());

describe('holdoutMetrics', () => {
  it('computes AUC, log loss, decile lift and the cut on the holdout part only', async () => {
    const rows = await wh.query<{ person_key: number; score: number; y: boolean }>(
      `SELECT person_key, score, y FROM s WHERE ${partSql('person_key', SEED)} = 2 ORDER BY person_key`,
    );
    const cut = 0.9;
    const m = await holdoutMetrics(wh, { scores: 'scores', labels: 'labels', seed: SEED, floor: 3, cut });
    const pos = rows.filter((r) => r.y).length;
    expect(m.persons).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(2500);
    expect(m.positives).toBe(pos);
    expect(m.roc_auc).toBeCloseTo(
      rocAuc(
        rows.map((r) => r.score),
        rows.map((r) => (r.y ? 1 : 0)),
      ),
      12,
    );
    const ll = rows.reduce((a, r) => a - Math.log(Math.max(1e-15, r.y ? r.score : 1 - r.score)), 0) / rows.length;
    expect(m.log_loss).toBeCloseTo(ll, 9);
    const above = rows.filter((r) => r.score >= cut);
    expect(m.precision_at_cut).toBeCloseTo(above.filter((r) => r.y).length / above.length, 12);
    expect(m.recall_at_cut).toBeCloseTo(above.filter((r) => r.y).length / pos, 12);
    expect(m.deciles.map((d) => d.persons).reduce((a, b) => a + b)).toBe(rows.length);
    expect(m.deciles[0]!.lift).toBeGreaterThan(2);
    expect(m.top_decile_lift).toBe(m.deciles[0]!.lift);
    expect(m.withheld).toEqual([]);
  });

  it('withholds every figure drawn from fewer than `floor` positive persons', async () => {
    const m = await holdoutMetrics(wh, { scores: 'scores', labels: 'labels', seed: SEED, floor: 40, cut: 0.9 });
    const hidden = m.deciles.filter((d) => d.lift === null);
    expect(hidden.length).toBeGreaterThan(0);
    for (const d of hidden) expect(d.positives).toBeNull();
    expect(m.withheld.join(' ')).toContain(`lift of decile ${hidden.map((d) => d.decile).join(', ')}`);
    const all = await holdoutMetrics(wh, { scores: 'scores', labels: 'labels', seed: SEED, floor: 100_000, cut: 0.9 });
    expect(all).toMatchObject({
      positives: null,
      prevalence: null,
      roc_auc: null,
      log_loss: null,
      top_decile_lift: null,
      precision_at_cut: null,
      recall_at_cut: null,
    });
    expect(all.deciles.every((d) => d.lift === null && d.positives === null)).toBe(true);
  });
});
