/**
 * Jobs survive a crash (issue 12): `ads serve` is killed with kill -9 in the middle of a file match; a
 * new process started at once on the same data directory (the stale lock of the dead one does not stop
 * it) takes the job over when its heartbeat lapses (a short configured lease), removes the dead run's
 * staging and completes the match. Real processes, the embedded store, real HTTP uploads.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveProcess, type Served } from '../helpers/serve-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'ads-crash-'));
const env = {
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  GRAPH_PERSONS: '2000',
  LOG_LEVEL: 'info',
  DATABASE_URL: '',
  MATCH_WARMUP: 'false',
  JOB_HEARTBEAT_SECONDS: '10',
  JOB_SUPERVISE_SECONDS: '2',
};
const ROWS = 400_000;
const started: Served[] = [];
afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number, every = 250): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

function csv(rows: number): string {
  const lines = ['first_name,last_name,email,zip'];
  for (let i = 0; i < rows; i++)
    lines.push(`Ann${i % 97},Smith${i},ann.smith${i}@example.com,${String(10000 + (i % 80000)).padStart(5, '0')}`);
  return `${lines.join('\n')}\n`;
}

const runDirs = (orgId: string, segmentId: string) => {
  const dir = join(dataDir, 'objects', 'results', orgId, segmentId, 'v1');
  return existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith('run-')) : [];
};

describe.skipIf(process.platform !== 'linux')('a worker killed mid file match', () => {
  it("resumes on a new process within the short lease, with the dead run's staging removed", async () => {
    const a = await serveProcess(['src/main.ts', 'serve'], env, 300_000);
    started.push(a);
    const rawKey = a.output().match(/(ads_live_\S+)/)?.[1];
    expect(rawKey).toBeDefined();
    await until('the default graph', async () => (a.output().includes('Graph ready') ? true : undefined), 300_000, 500);
    const call = async (base: string, method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const tokenOf = async (base: string) => (await call(base, 'POST', '/v1/auth/token', { api_key: rawKey })).body.access_token as string;
    let token = await tokenOf(a.url);
    const created = await call(a.url, 'POST', '/v1/match/file', { name: 'crash test' }, token);
    expect(created.status).toBe(201);
    const segmentId = created.body.segment_id ?? created.body.id;
    const orgId = (await call(a.url, 'GET', '/v1/auth/session', undefined, token)).body.org_id;
    const put = await fetch(created.body.upload_url.replace(/^https?:\/\/[^/]+/, a.url), {
      method: 'PUT',
      body: csv(ROWS),
      headers: { 'content-type': 'text/csv' },
    });
    expect(put.status).toBeLessThan(300);

    // Mid match: the run has started (its folder exists) and is still matching.
    const deadRun = await until(
      'the run to start',
      async () => {
        const fm = (await call(a.url, 'GET', `/v1/match/file/${segmentId}`, undefined, token)).body;
        const dirs = runDirs(orgId, segmentId);
        return fm.matching_status === 'matching' && dirs.length === 1 ? dirs[0] : undefined;
      },
      120_000,
      100,
    );
    process.kill(-a.child.pid!, 'SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    expect(runDirs(orgId, segmentId)).toEqual([deadRun]);

    // Another process on the same data directory, started at once.
    const b = await serveProcess(['src/main.ts', 'serve'], env, 300_000);
    started.push(b);
    token = await tokenOf(b.url);
    const done = await until(
      'the match to complete on the new process',
      async () => {
        const fm = (await call(b.url, 'GET', `/v1/match/file/${segmentId}`, undefined, token)).body;
        return ['completed', 'failed'].includes(fm.matching_status) ? fm : undefined;
      },
      240_000,
      500,
    );
    expect(done.matching_status).toBe('completed');
    expect(done.input_record_count).toBe(ROWS); // every row, once: the dead run's partial work is not counted
    expect(b.output()).toContain('file match resumed after its previous run died');
    const after = runDirs(orgId, segmentId);
    expect(after).not.toContain(deadRun);
    for (const dir of after) expect(existsSync(join(dataDir, 'objects', 'results', orgId, segmentId, 'v1', dir, 'stage'))).toBe(false);
    expect(await b.stop()).toBe(0);
  }, 900_000);
});
