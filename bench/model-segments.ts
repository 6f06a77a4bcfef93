/**
 * A similarity segment end to end through the service (issue #19): POST /v1/segments with a seed
 * segment, the workflow job on a real pg-boss worker, polled until the segment is active; then the
 * same build relaunched by refresh. Wall time from the POST to `active`, with the run's stage
 * timings. Small graph by default (generated once). Prints JSON.
 *   flock /work/bench.lock npx tsx bench/model-segments.ts [--persons 100000] [--graph-dir .bench/model-segments-100k] [--builds 3]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateGraph } from '../src/graph/generate.ts';
import { readCurrentRelease } from '../src/graph/releases.ts';
import { startWorkerBenchApp } from './lib/worker-app.ts';

const { values } = parseArgs({
  options: {
    persons: { type: 'string', default: '100000' },
    'graph-dir': { type: 'string', default: '.bench/model-segments-100k' },
    builds: { type: 'string', default: '3' },
  },
});
const dataDir = path.resolve(values['graph-dir']!);
const persons = Number(values.persons);
if (!readCurrentRelease(dataDir)) {
  const t = performance.now();
  await generateGraph({ dataDir, persons, seed: 42, releaseDate: '2026-11-23', threads: 2 });
  console.error(`generated ${persons} persons in ${Math.round((performance.now() - t) / 1000)} s`);
}

const { call, close } = await startWorkerBenchApp({ dataDir });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function untilActive(segmentId: string, runId: string) {
  for (;;) {
    const run = await call('GET', `/v1/workflows/${runId}`);
    if (run.status === 'failed' || run.status === 'cancelled') throw new Error(`run ${run.status}: ${run.error_message}`);
    const seg = await call('GET', `/v1/segments/${segmentId}`);
    if (seg.status === 'active') return { run, seg };
    await sleep(100);
  }
}

const seed = await call('POST', '/v1/segments', {
  name: 'CA seed',
  filters: [{ field: 'state', op: '=', value: 'CA' }],
  create_audience: false,
});
const builds: object[] = [];
let segmentId: string | null = null;
for (let i = 0; i < Number(values.builds); i++) {
  const t0 = performance.now();
  const started: { segment_id: string; workflow_run_id: string } = segmentId
    ? await call('POST', `/v1/segments/${segmentId}/refresh`, {})
    : await call('POST', '/v1/segments', { name: 'CA lookalikes', subtype: 'similarity', seed_segment_id: seed.segment_id });
  segmentId = started.segment_id;
  const { run, seg } = await untilActive(started.segment_id, started.workflow_run_id);
  const wallMs = Math.round(performance.now() - t0);
  builds.push({
    build: i === 0 ? 'create' : 'refresh',
    wall_ms: wallMs,
    record_count: seg.record_count,
    seed_persons: run.steps[0].metrics.seed_persons,
    holdout_auc: run.model_summary.holdout_auc,
    stages_ms: run.steps[1].metrics.timings_ms,
  });
}
const walls = builds.map((b: any) => b.wall_ms).sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      bench: 'model-segments',
      persons,
      model_type: 'BOOSTED_TREE_CLASSIFIER',
      builds,
      median_wall_ms: walls[Math.floor(walls.length / 2)],
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      load_avg: (await import('node:os')).loadavg().map((x) => Math.round(x * 10) / 10),
    },
    null,
    2,
  ),
);
await close();
process.exit(0);
