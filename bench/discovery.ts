/**
 * Discovery count latency over HTTP against the generated graph, beside the same filter as raw SQL in
 * DuckDB in the same run. Prints JSON (p50/p95 per query, peak RSS).
 *   npx tsx bench/discovery.ts --data-dir .bench/data [--iterations 30]
 * Generate the graph first: npx tsx bench/graph-generate.ts --persons 10000000
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { DISCOVERY_TABLE } from '../src/graph/discovery-table.ts';
import { normalizeFilterInput, validateFilterGroups } from '../src/graph/filters/index.ts';
import { membershipSql } from '../src/graph/membership/sql.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { CATALOG_FIELDS } from '../src/graph/person-fields.ts';
import { startBenchApp } from './lib/app.ts';

const { values } = parseArgs({
  options: { 'data-dir': { type: 'string', default: '.bench/data' }, iterations: { type: 'string', default: '30' } },
});
const dataDir = path.resolve(values['data-dir']!);
const iterations = Number(values.iterations);
const release = readCurrentRelease(dataDir);
if (!release) throw new Error(`no release in ${dataDir}; run bench/graph-generate.ts first`);

const QUERIES: Record<string, object> = {
  two_group_or_state_city_age: {
    filter_groups: [
      {
        id: 'g1',
        combinator: 'AND',
        filters: [
          { field: 'state', op: '=', value: 'CA' },
          { field: 'city', op: 'IN', value: ['LOS ANGELES', 'SAN DIEGO'] },
        ],
      },
      {
        id: 'g2',
        combinator: 'OR',
        filters: [
          { field: 'state', op: '=', value: 'TX' },
          { field: 'age', op: 'BETWEEN', value: [25, 44] },
        ],
      },
    ],
  },
  interests_contains_any: { filters: [{ field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['golf', 'fishing', 'camping'] }] },
  city_in_case_insensitive: {
    filters: [{ field: 'city', op: 'IN', value: ['houston', 'Chicago', 'phoenix', 'San Antonio'], text_comparison: 'case_insensitive' }],
  },
  group_by_state: { filters: [{ field: 'age', op: 'BETWEEN', value: [35, 54] }], group_by: 'state' },
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

// The app, on the real stack: embedded control plane in a temp dir, a loopback port, no throttling.
const { address, token, close } = await startBenchApp({
  dataDir,
  scopes: ['discovery'],
  tune: (config) => {
    config.discovery.computeBudgetBytes.enterprise = Number.MAX_SAFE_INTEGER;
  },
});

// Raw DuckDB beside it: its own instance, the same release and table, the same compiled predicate
// (a bare count: the HTTP count also computes the default breakdowns in the same scan).
const duck = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await duck.connect();
await conn.run(`ATTACH '${releaseFilePath(dataDir, release).replace(/'/g, "''")}' AS graph (READ_ONLY)`);

const results: Record<string, unknown> = {};
for (const [name, body] of Object.entries(QUERIES)) {
  const send = async () => {
    const t0 = performance.now();
    const res = await fetch(`${address}/v1/discovery/count`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { count?: number; error?: string };
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - t0, count: json.count };
  };
  const n = normalizeFilterInput(body as never, CATALOG_FIELDS);
  if (!n.ok) throw new Error('bad filter');
  const v = validateFilterGroups(n.groups, CATALOG_FIELDS, { form: n.form });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  const m = membershipSql({ kind: 'filters', groups: v.groups }, { catalog: CATALOG_FIELDS });
  const groupBy = (body as { group_by?: string }).group_by;
  const sql = groupBy
    ? `SELECT p.${groupBy} AS g, count(*) AS n FROM graph.${DISCOVERY_TABLE} p WHERE ${m.where} GROUP BY ALL`
    : `SELECT count(*) AS n FROM graph.${DISCOVERY_TABLE} p WHERE ${m.where}`;
  const raw = async () => {
    const t0 = performance.now();
    await conn.runAndReadAll(sql, m.params as never);
    return performance.now() - t0;
  };
  const first = await send(); // warm both
  await raw();
  const http: number[] = [];
  const rawMs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    http.push((await send()).ms);
    rawMs.push(await raw());
  }
  results[name] = {
    count: first.count,
    http_p50_ms: pct(http, 50),
    http_p95_ms: pct(http, 95),
    raw_sql_p50_ms: pct(rawMs, 50),
    raw_sql_p95_ms: pct(rawMs, 95),
  };
  process.stderr.write(`${name}: ${JSON.stringify(results[name])}\n`);
}

console.log(
  JSON.stringify(
    {
      persons: release.persons,
      release: `${release.major}.${release.minor}`,
      iterations,
      note: 'HTTP counts without group_by include the default breakdowns (gender, age band, income band, state) in the same scan',
      results,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    null,
    2,
  ),
);
conn.closeSync();
duck.closeSync();
await close();
