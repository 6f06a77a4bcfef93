/**
 * Micro-batch latency: matchBatch of 100 mixed records (labelled-set scenarios incl. absent people).
 *
 *   npx tsx bench/match-latency.ts [--data-dir .bench/data] [--batches 40]
 *
 * Uses the current release under data-dir (the graph engineer's 10M graph when present), builds
 * its match index if missing (timed), warms it as a running service does at start (matcher.warm(),
 * timed; --no-warm skips it), then reports the first batches and the p50/p95 of the rest.
 */
import path from 'node:path';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { generateLabelledSet } from '../src/identity/matcher/labelled-set.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { createMatcher } from '../src/identity/matcher/matcher.ts';
import { normalizeMatchInput } from '../src/identity/normalize/record.ts';
import { openWarehouseOn } from '../test/matching/helpers.ts';

const argv = process.argv;
const opt = (n: string, d: string) => (argv.indexOf(`--${n}`) > 0 ? argv[argv.indexOf(`--${n}`) + 1]! : d);
const dataDir = path.resolve(opt('data-dir', path.resolve(import.meta.dirname, '../.bench/data')));
const batches = Number(opt('batches', '40'));
const warmFirst = !argv.includes('--no-warm');

const info = readCurrentRelease(dataDir);
if (!info) throw new Error(`no current release under ${dataDir}`);
const releaseFile = releaseFilePath(dataDir, info);
let t = performance.now();
const indexPath = await buildMatchIndex(releaseFile, { threads: 2 });
console.log(`release ${info.file}: ${info.persons} persons; match index ready in ${((performance.now() - t) / 1000).toFixed(1)} s`);

// The labelled rows come from a separate connection so the matcher's connection starts cold.
const sampler = await openWarehouseOn(releaseFile);
t = performance.now();
const set = await generateLabelledSet(sampler, 'graph', batches * 100, 23);
sampler.close();
console.log(`sampled ${set.length} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));

const wh = await openWarehouseOn(releaseFile);
const matcher = createMatcher({ warehouse: wh, indexPath });
if (warmFirst) {
  const w = await matcher.warm();
  console.log(`warm-up: ${w.keys} keys and ${w.persons} persons probed in ${(w.ms / 1000).toFixed(1)} s`);
}
const times: number[] = [];
let matched = 0;
for (let b = 0; b < batches; b++) {
  const batch = rows.slice(b * 100, b * 100 + 100);
  const s = performance.now();
  const res = await matcher.matchBatch(batch, { matchLevels: ['I', 'H', 'D', 'S', 'A'], spatialMode: 'residential' });
  times.push(performance.now() - s);
  matched += res.filter((r) => r.matchLevel !== null).length;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const cold = times.slice(0, 3);
const warm = times.slice(5);
console.log(`first 3 batches${warmFirst ? ' (after warm-up)' : ' on a new connection'}: ${cold.map((x) => x.toFixed(1)).join(', ')} ms`);
console.log(
  `then (${warm.length} batches of 100): p50 ${pct(warm, 0.5).toFixed(1)} ms, p95 ${pct(warm, 0.95).toFixed(1)} ms; matched ${matched}/${batches * 100}`,
);
wh.close();
