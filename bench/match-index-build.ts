/**
 * Builds the match index sidecar of a bench graph's current release and prints elapsed seconds, peak RSS,
 * file size and the key count per block kind as JSON (issue #15: the index must build at 10M persons).
 *   npx tsx bench/match-index-build.ts [--data-dir .bench/data] [--memory-limit 12GB] [--rebuild]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { lit } from '../src/graph/duck.ts';
import { buildMatchIndex, matchIndexPath } from '../src/identity/matcher/index.ts';
import { defaultMemoryLimit } from '../src/graph/duck.ts';
import { KIND } from '../src/identity/matcher/keys.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/data' },
    'memory-limit': { type: 'string' },
    rebuild: { type: 'boolean', default: false },
  },
});
const dataDir = path.resolve(values['data-dir']!);
const info = readCurrentRelease(dataDir);
if (!info) throw new Error(`no release in ${dataDir}; run bench/graph-generate.ts first`);
const release = releaseFilePath(dataDir, info);
const target = matchIndexPath(release);
if (values.rebuild) fs.rmSync(target, { force: true });
if (fs.existsSync(target)) throw new Error(`${target} exists (pass --rebuild)`);
let peak = 0;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 200);
const started = performance.now();
await buildMatchIndex(release, { memoryLimit: values['memory-limit'] });
const seconds = (performance.now() - started) / 1000;
clearInterval(timer);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run(`ATTACH ${lit(target)} AS mx (READ_ONLY)`);
const names = Object.fromEntries(Object.entries(KIND).map(([n, k]) => [k, n]));
const kinds = (await c.runAndReadAll('SELECT kind, count(*) AS n FROM mx.m_key GROUP BY kind ORDER BY kind'))
  .getRowObjectsJS()
  .map((r) => ({ kind: names[Number(r.kind)] ?? String(r.kind), keys: Number(r.n) }));
console.log(
  JSON.stringify(
    {
      release: path.basename(release),
      seconds: Math.round(seconds * 10) / 10,
      memory_limit: values['memory-limit'] ?? defaultMemoryLimit(),
      peak_rss_mib: Math.round(peak / 2 ** 20),
      index_bytes: fs.statSync(target).size,
      keys: kinds.reduce((a, k) => a + k.keys, 0),
      kinds,
    },
    null,
    1,
  ),
);
