/**
 * Audience latency over HTTP (app.inject, the real app and stores) against the generated graph:
 * p50/p95 of POST /v1/audiences/{id}/count for a three-segment union with one exclusion, and of
 * GET /v1/audiences pages. Prints JSON.
 *   npx tsx bench/audiences.ts --data-dir .bench/data [--iterations 20] [--audiences 300]
 * Generate the graph first: npx tsx bench/graph-generate.ts --persons 10000000
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { openDatabase } from '../src/db/database.ts';
import { readCurrentRelease } from '../src/graph/releases.ts';
import { createJobQueue } from '../src/jobs/queue.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/data' },
    iterations: { type: 'string', default: '20' },
    audiences: { type: 'string', default: '300' },
  },
});
const dataDir = path.resolve(values['data-dir']!);
const iterations = Number(values.iterations);
const release = readCurrentRelease(dataDir);
if (!release) throw new Error(`no release in ${dataDir}; run bench/graph-generate.ts first`);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null });
const queue = createJobQueue(database, { schema: `bench_${Date.now()}` });
await queue.start();
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMITS: JSON.stringify({ enterprise: 1_000_000 }) });
const { app, services } = await build(config, { database, queue, logger: false });
await app.ready();
const org = await services.organizations.createOrganization({ name: 'bench', tier: 'enterprise' });
const owner = await services.organizations.addUser({ orgId: org.id, email: 'bench@example.com', role: 'owner' });
const key = await services.apiKeys.issueKey({ orgId: org.id, userId: owner.id, name: 'bench', scopes: ['discovery', 'creator'] });
const token = (await services.auth.exchangeApiKey(key.raw_key)).access_token;
const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const t0 = performance.now();
  const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const ms = performance.now() - t0;
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return { ms, body: res.json() };
};

const seg = async (name: string, filters: object[]) =>
  (await call('POST', '/v1/segments', { name, filters, create_audience: false })).body.segment_id as string;
const a = await seg('west', [{ field: 'state', op: 'IN', value: ['CA', 'OR', 'WA'] }]);
const b = await seg('older homeowners', [
  { field: 'age', op: '>=', value: 55 },
  { field: 'homeowner', op: '=', value: true },
]);
const c = await seg('texas young', [
  { field: 'state', op: '=', value: 'TX' },
  { field: 'age', op: 'BETWEEN', value: [25, 34] },
]);
const x = await seg('excluded', [
  { field: 'gender', op: '=', value: 'F' },
  { field: 'age', op: '<', value: 30 },
]);
const created = await call('POST', '/v1/audiences', { name: 'bench', segment_ids: [a, b, c], excluded_segment_ids: [x] });
const audienceId = created.body.audience_id as string;

const countMs: number[] = [];
let recordCount = 0;
for (let i = 0; i < iterations + 2; i++) {
  const r = await call('POST', `/v1/audiences/${audienceId}/count`);
  if (i >= 2) countMs.push(r.ms); // two warm-up calls
  recordCount = r.body.record_count;
}

// Many audiences (counts given, so creation does not scan) to page through.
const total = Number(values.audiences);
for (let i = 0; i < total; i += 25) {
  const items = Array.from({ length: Math.min(25, total - i) }, (_, j) => ({
    name: `a${i + j}`,
    segment_ids: [a, b],
    excluded_segment_ids: [x],
    record_count: 1000,
  }));
  await call('POST', '/v1/audiences/bulk-create', { audiences: items });
}
const pageMs: Record<string, number[]> = { limit_25: [], limit_100: [] };
for (const [label, limit] of [
  ['limit_25', 25],
  ['limit_100', 100],
] as const) {
  for (let round = 0; round < 3; round++) {
    let cursor: string | null = null;
    do {
      const r: { ms: number; body: any } = await call('GET', `/v1/audiences?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      pageMs[label]!.push(r.ms);
      cursor = r.body.next_cursor;
    } while (cursor);
  }
}

console.log(
  JSON.stringify(
    {
      persons: release.persons,
      release: `${release.major}.${release.minor}`,
      control_plane: database.kind,
      audience_count: {
        composition: '3 included (union) + 1 excluded',
        record_count: recordCount,
        iterations,
        p50_ms: pct(countMs, 50),
        p95_ms: pct(countMs, 95),
      },
      list_pages: Object.fromEntries(
        Object.entries(pageMs).map(([k, v]) => [k, { pages: v.length, p50_ms: pct(v, 50), p95_ms: pct(v, 95) }]),
      ),
      audiences_listed: total + 1,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    null,
    2,
  ),
);
await app.close();
await queue.stop();
await database.close();
