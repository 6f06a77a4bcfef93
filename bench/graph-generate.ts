/**
 * Generates a synthetic graph into a bench data dir and prints elapsed seconds, file size and peak RSS
 * as JSON. The graph stays there for the other benchmarks.
 *   npx tsx bench/graph-generate.ts [--persons 10000000] [--seed 42] [--data-dir .bench/data] [--memory-limit 10GB]
 * The default is the 10M persons the issues measure at (about 7 minutes and 10 GB on 2 cores).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateGraph } from '../src/graph/generate.ts';
import { releaseFilePath } from '../src/graph/releases.ts';

const { values } = parseArgs({
  options: {
    persons: { type: 'string', default: '10000000' },
    seed: { type: 'string', default: '42' },
    'data-dir': { type: 'string', default: '.bench/data' },
    // DuckDB memory limit of the writer (default: half of RAM, capped at 12 GB).
    'memory-limit': { type: 'string' },
  },
});
const dataDir = path.resolve(values['data-dir']!);
const persons = Number(values.persons!.replace(/_/g, ''));
const started = performance.now();
const stageTimes: Record<string, number> = {};
let last = started;
let current = 'start';
const info = await generateGraph({
  dataDir,
  persons,
  seed: Number(values.seed),
  memoryLimit: values['memory-limit'],
  onProgress: ({ step }) => {
    // Each entry is the time spent in that stage (from its announcement to the next one).
    const now = performance.now();
    stageTimes[current] = Math.round(now - last) / 1000;
    last = now;
    current = step;
    process.stderr.write(`${step}... ${((now - started) / 1000).toFixed(1)} s\n`);
  },
});
const seconds = (performance.now() - started) / 1000;
const bytes = fs.statSync(releaseFilePath(dataDir, info)).size;
console.log(
  JSON.stringify(
    {
      persons: info.persons,
      release: `${info.major}.${info.minor}`,
      file: info.file,
      elapsed_seconds: Math.round(seconds * 10) / 10,
      file_bytes: bytes,
      file_gib: Math.round((bytes / 2 ** 30) * 100) / 100,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      stage_seconds: stageTimes,
    },
    null,
    2,
  ),
);
