/**
 * File matching end to end: create (POST /v1/match/file), PUT the CSV through the signed URL over a
 * real port, resolution by the worker, until the segment is active. Reports each phase, rows/s and
 * the process's peak RSS (API + worker + DuckDB in one process).
 *
 *   [DUCKDB_MEMORY_LIMIT=2GB] npx tsx bench/file-match.ts [--graph-dir .bench/data] [--rows 1000000] [--gzip] [--quality | --mixed]
 *
 * --quality: the input is the identity issue's labelled set (labelled-set.ts; seed 11 as
 * bench/match-quality.ts) and the report adds its quality figures, measured on rows.parquet.
 * --mixed: issue #15's file (lib/mixed-file.ts, a seeded sample since 2026-11-24): graph persons with mixed fields (name always; email half the rows, phone
 * 40%; a third with street address + ZIP, a third ZIP only, a third no geography; dob half), 10% strangers.
 *
 * The graph dir's warehouse is linked into a scratch data dir, so uploads and results never land in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { build } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { openDatabase } from '../src/db/database.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { createJobQueue } from '../src/jobs/queue.ts';
import { startJobs } from '../src/jobs/worker.ts';
import { generateLabelledSet, type LabelledRow } from '../src/identity/matcher/labelled-set.ts';
import { stringify } from 'csv-stringify/sync';
import { mixedFileSql } from './lib/mixed-file.ts';
import { reportQuality } from './lib/quality.ts';

const argv = process.argv;
const opt = (n: string, d: string) => (argv.indexOf(`--${n}`) > 0 ? argv[argv.indexOf(`--${n}`) + 1]! : d);
// Defaults: the issue's measurement, 1M rows against graph-generate's 10M graph.
const graphDir = path.resolve(opt('graph-dir', '.bench/data'));
const rows = Number(opt('rows', '1000000'));
const gzip = argv.includes('--gzip');
const quality = argv.includes('--quality');
const mixed = argv.includes('--mixed');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-fm-'));
fs.symlinkSync(path.join(graphDir, 'warehouse'), path.join(dataDir, 'warehouse'));
const release = readCurrentRelease(dataDir);
if (!release) throw new Error(`no release under ${graphDir}`);

const csv = path.join(dataDir, 'input.csv');
const releaseFile = releaseFilePath(dataDir, release);
let labelled: LabelledRow[] = [];
{
  const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
  const c = await inst.connect();
  await c.run(`ATTACH '${releaseFile}' AS g (READ_ONLY)`);
  if (quality) {
    // The labelled set's rows (flat scalar fields) as CSV, row_id = position.
    const wh = { query: async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[] };
    labelled = await generateLabelledSet(wh as never, 'g', rows, 11);
    const cols = ['row_id', ...new Set(labelled.flatMap((l) => Object.keys(l.record)))];
    fs.writeFileSync(
      csv,
      stringify(
        labelled.map((l, i) => ({ ...l.record, row_id: `r${i}` })),
        { header: true, columns: cols },
      ),
    );
  } else if (mixed) {
    await c.run(mixedFileSql('g', rows, csv));
  } else {
    // Graph persons (email + name + ZIP) repeated with fresh row ids, plus 10% strangers.
    await c.run(`COPY (
      WITH p AS (SELECT p.first_name, p.last_name, p.zip5, (SELECT min(email) FROM g.emails e WHERE e.person_key = p.person_key) AS email,
                        row_number() OVER () AS k FROM g.persons p USING SAMPLE ${Math.ceil(rows * 0.9)} ROWS),
           n AS (SELECT count(*) AS c FROM p)
      SELECT 'r' || i AS row_id,
        CASE WHEN i % 10 = 0 THEN 'nobody' || i || '@example.invalid' ELSE p.email END AS email,
        p.first_name, CASE WHEN i % 10 = 0 THEN 'Qqzx' || i ELSE p.last_name END AS last_name, p.zip5 AS zip
      FROM range(${rows}) r(i), n JOIN p ON p.k = (i % n.c) + 1
    ) TO '${csv}' (HEADER)`);
  }
  c.closeSync();
  inst.closeSync();
}
const bytes = fs.statSync(csv).size;

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null, poolSize: 5 });
const queue = createJobQueue(database);
// DuckDB's memory limit bounds the process (the issue's target is < 3 GiB RSS for the whole process).
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:1',
  DUCKDB_MEMORY_LIMIT: process.env.DUCKDB_MEMORY_LIMIT ?? '2GB',
});
const built = await build(config, { database, queue, logger: false });
await built.app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
const s = built.services;
const worker = await startJobs(queue, [s.webhookDispatcher.definition, ...s.fileMatch.jobDefinitions()], { work: true });
const org = await s.organizations.createOrganization({ name: 'bench', tier: 'enterprise' });
const owner = await s.organizations.addUser({ orgId: org.id, email: 'bench@example.com', role: 'owner' });
const key = (await s.apiKeys.issueKey({ orgId: org.id, userId: owner.id, name: 'bench', scopes: ['discovery', 'creator'] })).raw_key;
const token = (await s.auth.exchangeApiKey(key)).access_token;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
// Warm the match index (built once per release, normally ahead of traffic).
await s.matchIndex.current();

let peak = 0;
let peakRead = 0; // during create, upload and the read pass
const sampler = setInterval(() => {
  const rss = process.memoryUsage().rss;
  peak = Math.max(peak, rss);
  if (!readDone) peakRead = Math.max(peakRead, rss);
}, 100);
// The read pass (parse, normalize, stage) ends when progress.rows_read reaches the row count; the
// match pass (one statement, decisions) and the Parquet finalize follow (+- the 200 ms poll).
let readDone = 0;
const t0 = performance.now();
const created = (await (
  await fetch(`${base}/v1/match/file`, { method: 'POST', headers: auth, body: JSON.stringify(gzip ? { compression: 'gzip' } : {}) })
).json()) as { segment_id: string; upload_url: string };
const t1 = performance.now();
let body: Readable = fs.createReadStream(csv);
if (gzip) {
  const gz = path.join(dataDir, 'input.csv.gz');
  await pipeline(fs.createReadStream(csv), createGzip(), fs.createWriteStream(gz));
  body = fs.createReadStream(gz);
}
const t1b = performance.now();
const put = await fetch(created.upload_url.replace(/^https?:\/\/[^/]+/, base), {
  method: 'PUT',
  body: Readable.toWeb(body) as never,
  duplex: 'half',
  headers: { 'content-type': 'text/csv' },
} as never);
if (put.status !== 200) throw new Error(`PUT ${put.status}: ${await put.text()}`);
const t2 = performance.now();
let status: Record<string, any> = {};
for (;;) {
  status = (await (await fetch(`${base}/v1/match/file/${created.segment_id}`, { headers: auth })).json()) as Record<string, any>;
  if (!readDone && status.progress?.rows_read === rows) readDone = performance.now();
  if (status.matching_status === 'completed' || status.matching_status === 'failed') break;
  await new Promise((r) => setTimeout(r, 200));
}
const t3 = performance.now();
clearInterval(sampler);
const sec = (a: number, b: number) => ((b - a) / 1000).toFixed(2);
console.log(
  JSON.stringify(
    {
      release: release.file,
      rows,
      bytes,
      gzip,
      matching_status: status.matching_status,
      error: status.error_message,
      input_record_count: status.input_record_count,
      match_count: status.match_count,
      match_rate: status.match_rate,
      create_s: sec(t0, t1),
      upload_s: sec(t1b, t2),
      resolve_s: sec(t2, t3),
      read_pass_s: readDone ? sec(t2, readDone) : null,
      match_and_finalize_s: readDone ? sec(readDone, t3) : null,
      // End to end: create + upload + resolve (not the bench's own gzip of the input).
      end_to_end_s: ((t1 - t0 + t3 - t1b) / 1000).toFixed(2),
      rows_per_s_end_to_end: Math.round(rows / ((t1 - t0 + t3 - t1b) / 1000)),
      rows_per_s_resolve: Math.round(rows / ((t3 - t2) / 1000)),
      // During create/upload/resolve (sampled every 100 ms), and over the whole process, which includes
      // generating the input file from the graph before the service starts.
      peak_rss_service_mib: Math.round(peak / 2 ** 20),
      peak_rss_read_pass_mib: Math.round(peakRead / 2 ** 20),
      peak_rss_process_mib: Math.round(Math.max(peak, process.resourceUsage().maxRSS * 1024) / 2 ** 20),
    },
    null,
    1,
  ),
);
if (quality && status.matching_status === 'completed') {
  // rows.parquet in file order, with the household of each answered person for H/A/S correctness.
  const dir = s.fileMatch.objects.pathOf(`results/${org.id}/${created.segment_id}/v1`);
  const parquet = path.join(dir, fs.readdirSync(dir)[0]!, 'rows.parquet');
  const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
  const c = await inst.connect();
  await c.run(`ATTACH '${releaseFile}' AS g (READ_ONLY)`);
  const out = (
    await c.runAndReadAll(`SELECT r.match_level, r.match_type, r.match_confidence, r.person_key, p.household_key
    FROM read_parquet('${parquet}') r LEFT JOIN g.persons p USING (person_key) ORDER BY CAST(substr(r.row_id, 2) AS INTEGER)`)
  ).getRowObjectsJS();
  c.closeSync();
  inst.closeSync();
  const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as bigint));
  reportQuality(
    out.map((o) => ({
      matchLevel: o.match_level as string | null,
      matchType: o.match_type as string | null,
      matchConfidence: o.match_confidence as number | null,
      personKey: big(o.person_key),
      householdKey: big(o.household_key),
    })),
    labelled,
  );
}
await worker.stop();
await built.app.close();
await database.close?.();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
