/**
 * Similarity and propensity models (issue #19). Prints JSON.
 *   flock /work/bench.lock npx tsx bench/models.ts [--part quality|similarity|scale] [--model-types A,B]
 *
 * quality:    a 1M-person graph (.bench/model-engine-1m, generated once, seed 42) with a planted outcome
 *             following a stated logistic model of 5 catalog attributes at 5% prevalence
 *             (bench/lib/planted.ts): the oracle's holdout AUC beside each model type's holdout AUC
 *             (target: within 0.03) and top-decile lift (target: >= 3).
 * similarity: on the same graph, a planted 2% sub-population and a 5,000-person seed drawn from it:
 *             the sub-population's share of the similarity segment over its share of the graph
 *             (target: >= 5).
 * scale:      the 10M graph (.bench/data): a propensity segment end to end (training and scoring),
 *             per model type, with wall time per stage and peak RSS (target: < 2 minutes on 2 cores).
 * Labels are side files under the graph's folder, never in the release.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateGraph } from '../src/graph/generate.ts';
import { readCurrentRelease } from '../src/graph/releases.ts';
import { openWarehouse, type Warehouse } from '../src/graph/warehouse.ts';
import { runPropensity, runSimilarity, type ModelRunResult, type ModelType } from '../src/modelling/index.ts';
import { CATALOG_FIELDS } from '../src/graph/person-fields.ts';
import { OUTCOME_STATED, SUBPOP_STATED, oracleOnHoldout, plantOutcome, plantSubpopulation } from './lib/planted.ts';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'quality,similarity,scale' },
    'graph-dir': { type: 'string', default: '.bench/model-engine-1m' },
    persons: { type: 'string', default: '1000000' },
    'scale-dir': { type: 'string', default: '.bench/data' },
    'model-types': { type: 'string', default: 'LOGISTIC_REG,BOOSTED_TREE_CLASSIFIER,AUTOML_CLASSIFIER' },
    'scale-model-types': { type: 'string', default: 'BOOSTED_TREE_CLASSIFIER,LOGISTIC_REG' },
  },
});
const parts = values.part!.split(',');
const FLOOR = 50;
const SEED = 1;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function ensureGraph(dir: string, persons: number): Promise<void> {
  if (readCurrentRelease(dir)) return;
  const t = performance.now();
  await generateGraph({ dataDir: dir, persons, seed: 42, releaseDate: '2026-11-23', threads: 2 });
  console.error(`generated ${persons} persons in ${dir} in ${Math.round((performance.now() - t) / 1000)} s`);
}

/** Wall time and CPU time (all threads, DuckDB's included) of `work`: CPU time is what contention cannot inflate. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return { result, ms: performance.now() - t, cpuMs: Math.round((used.user + used.system) / 1000) };
}

function summary(r: ModelRunResult, ms: number, cpuMs: number) {
  const m = r.metrics;
  return {
    selected: m.selected_model_type,
    candidates: m.candidates.map((c) => `${c.model_type} (${c.config}): validation AUC ${c.validation_auc.toFixed(4)}`),
    holdout_auc: m.holdout.roc_auc,
    top_decile_lift: m.holdout.top_decile_lift,
    log_loss: m.holdout.log_loss,
    precision_at_cut: m.holdout.precision_at_cut,
    recall_at_cut: m.holdout.recall_at_cut,
    target_size: m.target_size,
    record_count: m.record_count,
    features: m.training.features,
    sample: m.training.sample_persons,
    split_nodes:
      r.model.model.kind === 'boosted_trees' ? r.model.model.trees.reduce((a, t) => a + t.filter((n) => 'f' in n).length, 0) : null,
    top_fields: m.field_importance.slice(0, 6).map((f) => `${f.field} ${(f.importance * 100).toFixed(1)}%`),
    wall_ms: Math.round(ms),
    cpu_ms: cpuMs,
    stages_ms: r.timings_ms,
  };
}

async function quality(wh: Warehouse, dir: string) {
  const planted = await plantOutcome(wh, dir);
  const oracle = await oracleOnHoldout(wh, planted.labelsPath, SEED);
  const out: Record<string, unknown> = {
    stated_model: OUTCOME_STATED,
    intercept: planted.intercept,
    prevalence: planted.prevalence,
    oracle_holdout_auc: oracle.auc,
    oracle_top_decile_lift: oracle.lift,
  };
  for (const modelType of values['model-types']!.split(',') as ModelType[]) {
    const {
      result: r,
      ms,
      cpuMs,
    } = await timed(() =>
      runPropensity(wh, {
        fields: CATALOG_FIELDS,
        positiveClass: { sql: `SELECT person_key FROM read_parquet('${planted.positivesPath}')` },
        modelType,
        privacyFloor: FLOOR,
        randomSeed: SEED,
        membersPath: path.join(dir, 'out', `propensity-${modelType}.parquet`),
      }),
    );
    const s = summary(r, ms, cpuMs);
    out[modelType] = {
      ...s,
      auc_gap_to_oracle: oracle.auc - (s.holdout_auc ?? NaN),
      meets_auc_target: oracle.auc - (s.holdout_auc ?? 0) <= 0.03,
      meets_lift_target: (s.top_decile_lift ?? 0) >= 3,
    };
  }
  return out;
}

async function similarity(wh: Warehouse, dir: string) {
  const { subpopPath, seedPath } = await plantSubpopulation(wh, dir);
  const membersPath = path.join(dir, 'out', 'similarity.parquet');
  const {
    result: r,
    ms,
    cpuMs,
  } = await timed(() =>
    runSimilarity(wh, {
      fields: CATALOG_FIELDS,
      seed: { sql: `SELECT person_key FROM read_parquet('${seedPath}')` },
      privacyFloor: FLOOR,
      randomSeed: SEED,
      membersPath,
    }),
  );
  const [f] = await wh.query<{ in_segment: number; graph: number; seed_in_segment: number }>(`
    SELECT (SELECT avg((person_key IN (SELECT person_key FROM read_parquet('${subpopPath}')))::INT) FROM read_parquet('${membersPath}')) AS in_segment,
      (SELECT count(*) FROM read_parquet('${subpopPath}')) / (SELECT count(*) FROM graph.discovery_persons) AS graph,
      (SELECT count(*) FROM read_parquet('${membersPath}') WHERE person_key IN (SELECT person_key FROM read_parquet('${seedPath}'))) AS seed_in_segment`);
  return {
    planted: SUBPOP_STATED,
    seed_size: 5000,
    subpop_share_of_graph: f!.graph,
    subpop_share_of_segment: f!.in_segment,
    frequency_ratio: f!.in_segment / f!.graph,
    meets_target: f!.in_segment / f!.graph >= 5,
    seed_members_in_segment: f!.seed_in_segment,
    ...summary(r, ms, cpuMs),
  };
}

async function scale(dir: string) {
  const labelsDir = path.resolve('.bench/model-engine-10m-labels');
  fs.mkdirSync(labelsDir, { recursive: true });
  const wh = await openWarehouse({ dataDir: dir, threads: 2 });
  try {
    const t0 = performance.now();
    const planted = await plantOutcome(wh, labelsDir);
    const setupMs = performance.now() - t0;
    const out: Record<string, unknown> = {
      persons: (await wh.release()).persons,
      label_setup_ms: Math.round(setupMs),
      prevalence: planted.prevalence,
    };
    for (const modelType of values['scale-model-types']!.split(',') as ModelType[]) {
      const rssBefore = process.memoryUsage().rss;
      const {
        result: r,
        ms,
        cpuMs,
      } = await timed(() =>
        runPropensity(wh, {
          fields: CATALOG_FIELDS,
          positiveClass: { sql: `SELECT person_key FROM read_parquet('${planted.positivesPath}')` },
          modelType,
          privacyFloor: FLOOR,
          randomSeed: SEED,
          membersPath: path.join(labelsDir, 'out', `propensity-${modelType}.parquet`),
        }),
      );
      out[modelType] = {
        ...summary(r, ms, cpuMs),
        load_average: os.loadavg().map((x) => Math.round(x * 10) / 10),
        meets_time_target: ms < 120_000,
        rss_before_mb: mb(rssBefore),
        rss_after_mb: mb(process.memoryUsage().rss),
        peak_rss_mb_so_far: peakRssMb(),
      };
    }
    return out;
  } finally {
    await wh.close();
  }
}

const result: Record<string, unknown> = {
  date: new Date().toISOString().slice(0, 10),
  load_average_at_start: os.loadavg().map((x) => Math.round(x * 10) / 10),
};
if (parts.includes('quality') || parts.includes('similarity')) {
  const dir = path.resolve(values['graph-dir']!);
  await ensureGraph(dir, Number(values.persons));
  fs.mkdirSync(path.join(dir, 'out'), { recursive: true });
  const wh = await openWarehouse({ dataDir: dir, threads: 2 });
  try {
    if (parts.includes('quality')) result.quality = await quality(wh, dir);
    if (parts.includes('similarity')) result.similarity = await similarity(wh, dir);
  } finally {
    await wh.close();
  }
}
if (parts.includes('scale')) result.scale = await scale(path.resolve(values['scale-dir']!));
result.peak_rss_mb = peakRssMb();
console.log(JSON.stringify(result, null, 2));
