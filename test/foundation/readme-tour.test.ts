/**
 * The README's tour, run as written (issue #13: "the README tour works as written in a fresh clone"):
 * `ads serve` on an empty data dir and the embedded store prints the demo key and builds a small graph;
 * the tour's shell block runs with bash and curl against it (as pasted into a shell: no -e), with only KEY and API
 * filled in. Every step must answer without an error envelope except step 8, which shows one on purpose.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { serveProcess, type Served } from '../helpers/serve-process.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** The tour: the README's second sh block, with the key and the address of this server. */
export function tourScript(readme: string, key: string, api: string): string {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const tour = blocks[1];
  if (!tour || !/^KEY=ads_live_\.\.\./m.test(tour) || !/^API=http:\/\/localhost:8080$/m.test(tour)) {
    throw new Error('README: the tour block (second sh block, starting KEY=ads_live_... and API=http://localhost:8080) is missing');
  }
  return tour.replace(/^KEY=ads_live_\.\.\..*$/m, `KEY=${key}`).replace(/^API=http:\/\/localhost:8080$/m, `API=${api}`);
}

async function waitReady(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const body = (await fetch(`${url}/readyz`)
      .then((r) => r.json())
      .catch(() => null)) as { status?: string } | null;
    if (body?.status === 'ready') return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready within ${ms} ms`);
}

/** A free loopback port: the signed upload URLs carry PUBLIC_URL, so the port must be known before start. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let server: Served | null = null;
afterAll(async () => {
  await server?.stop();
});

describe('README tour', () => {
  it('runs as written against `ads serve` on an empty data dir: every step answers, only step 8 shows an error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-tour-'));
    const port = await freePort();
    server = await serveProcess(
      ['src/main.ts', 'serve'],
      {
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        GRAPH_PERSONS: '50000',
        LOG_LEVEL: 'warn',
        DATABASE_URL: '',
      },
      120_000,
    );
    await waitReady(server.url, 120_000);
    const key = server.output().match(/ads_live_[A-Za-z0-9_]+/)?.[0];
    expect(key, 'the demo key is printed at first start').toBeDefined();

    const script = tourScript(readFileSync(join(ROOT, 'README.md'), 'utf8'), key!, server.url);
    const { stdout } = await run('bash', ['-c', script], {
      cwd: mkdtempSync(join(tmpdir(), 'ads-tour-cwd-')),
      timeout: 120_000,
      maxBuffer: 1 << 24,
    });

    expect([...stdout.matchAll(/"error":"([A-Z_]+)"/g)].map((m) => m[1])).toEqual(['INVALID_FILTER']);
    expect(stdout).toMatch(/"via":"api_key"/); // 1. the session
    expect(stdout).toMatch(/"count":\d+,"privacy_floor":50/); // 2. a count
    expect(stdout).toMatch(/"name":"CA 30-45 renters","status":"active"/); // 3. the audience
    expect(stdout).toMatch(/"ok":true,"segment_id":"seg_[A-Za-z0-9]+","shard_index":0/); // 4. the upload
    expect(stdout).toMatch(/"matching_status":"(queued|reading|matching|completed)"/); // and the file match
    expect(stdout).toMatch(/"subtype":"similarity"/); // 5. the workflow
    expect(stdout).toMatch(/"quote_id":"dq_/); // 6. quote and delivery
    expect(stdout).toMatch(/"delivery_id":"dlv_[A-Za-z0-9]+".*"status":"(processing|completed)"/);
    expect(stdout).toMatch(/"url":"https:\/\/hooks\.example\.com\/ads"/); // 7. webhooks
    const served = server;
    server = null;
    expect(await served.stop(), served.output().slice(-3000)).toBe(0); // stops cleanly, work in flight included
  }, 300_000);
});
