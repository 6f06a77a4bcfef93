/**
 * POST /v1/match latency over HTTP at the size of the graph in data-dir (10M persons for issue #5):
 * 100 mixed records per request (labelled-set scenarios, absent people included), the real app on a
 * loopback port with the embedded control plane, billing and all. Reports the first requests on a
 * fresh process (cold), the warm-up a running `ads serve` does after start (timed), then p50/p95.
 *
 *   [DUCKDB_MEMORY_LIMIT=8GB] [WARM_KEYS=200000 WARM_PERSONS=100000] npx tsx bench/match-http.ts [--data-dir .bench/data] [--requests 40]
 * (WARM_KEYS/WARM_PERSONS override the warm-up sample sizes, to compare them.)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { generateLabelledSet } from '../src/identity/matcher/labelled-set.ts';
import { openWarehouseOn } from '../test/matching/helpers.ts';
import { startBenchApp } from './lib/app.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/data' },
    requests: { type: 'string', default: '40' },
    'no-resident': { type: 'boolean', default: false },
  },
});
const dataDir = path.resolve(values['data-dir']!);
const requests = Number(values.requests);
const release = readCurrentRelease(dataDir);
if (!release) throw new Error(`no release in ${dataDir}; run bench/graph-generate.ts first`);

// Input rows from a separate DuckDB instance, so the app's warehouse starts cold.
const sampler = await openWarehouseOn(releaseFilePath(dataDir, release));
const labelled = await generateLabelledSet(sampler, 'graph', (requests + 3) * 100, 29);
sampler.close();
const bodies = Array.from({ length: requests + 3 }, (_, b) => ({
  records: labelled.slice(b * 100, b * 100 + 100).map((l, i) => ({ ...l.record, row_id: `r${b}_${i}` })),
}));

const { address, token, services, close } = await startBenchApp({
  dataDir,
  scopes: ['creator'],
  env: { DUCKDB_MEMORY_LIMIT: process.env.DUCKDB_MEMORY_LIMIT ?? '' },
});
await services.matchIndex.current(); // the index exists (built by bench/match-latency.ts or now), untimed

const send = async (body: object) => {
  const t0 = performance.now();
  const res = await fetch(`${address}/v1/match`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { records?: { match_level: string | null }[] };
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)}`);
  return { ms: performance.now() - t0, matched: json.records!.filter((r) => r.match_level !== null).length };
};
const cold: number[] = [];
for (const body of bodies.slice(0, 3)) cold.push((await send(body)).ms);
// --no-resident: the warm-up without the process's copy of m_person (resident-persons.ts), to compare.
const warm = await services.matching.warm({
  ...(process.env.WARM_KEYS
    ? { keys: Number(process.env.WARM_KEYS), persons: Number(process.env.WARM_PERSONS ?? process.env.WARM_KEYS) }
    : {}),
  residentPersons: !values['no-resident'],
});
const times: number[] = [];
let matched = 0;
for (const body of bodies.slice(3)) {
  const r = await send(body);
  times.push(r.ms);
  matched += r.matched;
}
const pct = (xs: number[], p: number) =>
  Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 10) / 10;
console.log(
  JSON.stringify(
    {
      persons: release.persons,
      release: `${release.major}.${release.minor}`,
      records_per_request: 100,
      cold_first_3_ms: cold.map((x) => Math.round(x)),
      warm_up: { keys: warm.keys, persons: warm.persons, seconds: Math.round(warm.ms / 100) / 10 },
      resident_persons: warm.residentPersons ? { ...warm.residentPersons, mib: Math.round(warm.residentPersons.bytes / 2 ** 20) } : null,
      warm: { requests, p50_ms: pct(times, 0.5), p95_ms: pct(times, 0.95), matched: `${matched}/${requests * 100}` },
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    null,
    2,
  ),
);
await close();
