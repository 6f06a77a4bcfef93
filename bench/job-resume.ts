/**
 * Issue 12: how soon a file match whose `ads serve` was killed with kill -9 resumes on a new process, with
 * the default heartbeat settings (JOB_HEARTBEAT_SECONDS=30, JOB_SUPERVISE_SECONDS=30) unless the
 * environment sets others. Embedded store, a 2,000-person graph, a 400k-row CSV; the new process starts
 * at once on the same data directory. `npx tsx bench/job-resume.ts` prints JSON: seconds from the kill to
 * the new process listening, to the job's resumption (its log line) and to the completed match.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveProcess } from '../test/helpers/serve-process.ts';

const ROWS = Number(process.argv[process.argv.indexOf('--rows') + 1]) || 400_000;
const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-resume-'));
const env = {
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  GRAPH_PERSONS: '2000',
  LOG_LEVEL: 'info',
  DATABASE_URL: '',
  MATCH_WARMUP: 'false',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => Promise<T | undefined>, ms: number, every = 200): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(every);
  }
}
const call = async (base: string, method: string, path: string, body?: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};
const lines = ['first_name,last_name,email,zip'];
for (let i = 0; i < ROWS; i++)
  lines.push(`Ann${i % 97},Smith${i},ann.smith${i}@example.com,${String(10000 + (i % 80000)).padStart(5, '0')}`);

const a = await serveProcess(['src/main.ts', 'serve'], env, 300_000);
const rawKey = a.output().match(/(ads_live_\S+)/)![1];
await until(async () => (a.output().includes('Graph ready') ? true : undefined), 300_000, 500);
let token = (await call(a.url, 'POST', '/v1/auth/token', { api_key: rawKey })).access_token;
const created = await call(a.url, 'POST', '/v1/match/file', { name: 'resume bench' }, token);
const segmentId = created.segment_id ?? created.id;
const orgId = (await call(a.url, 'GET', '/v1/auth/session', undefined, token)).org_id;
await fetch(created.upload_url.replace(/^https?:\/\/[^/]+/, a.url), {
  method: 'PUT',
  body: `${lines.join('\n')}\n`,
  headers: { 'content-type': 'text/csv' },
});
const runs = () => {
  const dir = join(dataDir, 'objects', 'results', orgId, segmentId, 'v1');
  return existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith('run-')) : [];
};
await until(
  async () =>
    (await call(a.url, 'GET', `/v1/match/file/${segmentId}`, undefined, token)).matching_status === 'matching' && runs().length
      ? true
      : undefined,
  120_000,
  100,
);
const killedAt = Date.now();
process.kill(-a.child.pid!, 'SIGKILL');
const b = await serveProcess(['src/main.ts', 'serve'], env, 300_000);
const listening = (Date.now() - killedAt) / 1000;
token = (await call(b.url, 'POST', '/v1/auth/token', { api_key: rawKey })).access_token;
const resumed = await until(
  async () => (b.output().includes('file match resumed after its previous run died') ? (Date.now() - killedAt) / 1000 : undefined),
  300_000,
  200,
);
const fm = await until(
  async () => {
    const f = await call(b.url, 'GET', `/v1/match/file/${segmentId}`, undefined, token);
    return ['completed', 'failed'].includes(f.matching_status) ? f : undefined;
  },
  300_000,
  200,
);
const completed = (Date.now() - killedAt) / 1000;
await b.stop();
console.log(
  JSON.stringify({
    bench: 'job-resume',
    rows: ROWS,
    heartbeat_s: Number(process.env.JOB_HEARTBEAT_SECONDS ?? 30),
    supervise_s: Number(process.env.JOB_SUPERVISE_SECONDS ?? 30),
    new_process_listening_s: listening,
    resumed_s: resumed,
    completed_s: completed,
    status: fm.matching_status,
    dead_run_dirs_left: runs().length - 1,
  }),
);
