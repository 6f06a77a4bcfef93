/**
 * File-match test kit: the match-api graph and app, a real listening port for signed PUT uploads,
 * the resolution worker on the shared test queue, and file builders for the four formats.
 */
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import avro from 'avsc';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { testStores } from '../helpers/stores.ts';
import { setup as matchSetup, pickPersons, title, type MatchTest, type Row } from '../match-api/setup.ts';
import { waitFor } from '../webhooks/helpers.ts';

export interface FileTest extends MatchTest {
  base: string;
  put(url: string, body: Buffer | string, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  create(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>;
  waitStatus(id: string, statuses: string[], ms?: number): Promise<any>;
  stopWorker(): Promise<void>;
}

export async function setup(): Promise<FileTest> {
  const m = await matchSetup();
  await m.t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(m.t.app.server.address() as AddressInfo).port}`;
  const { queue } = await testStores();
  const def = m.t.services.fileMatch.jobDefinitions()[0] as JobDefinition;
  await queue.ensureQueue(def.name, def.queue);
  // The job's own work options (its concurrency among them), polling faster than in production.
  const workerId = await queue.work<any>(
    def.name,
    { ...def.work, batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, includeMetadata: true } as never,
    async (jobs) => {
      for (const job of jobs) await def.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
    },
  );
  const ft: FileTest = {
    ...m,
    base,
    async put(url, body, headers = {}) {
      // Signed URLs carry PUBLIC_URL; the signature covers the path, so only the origin is swapped for the test port.
      const target = url.replace(/^https?:\/\/[^/]+/, base);
      const res = await fetch(target, { method: 'PUT', body, headers: { 'content-type': 'text/csv', ...headers } });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async create(body = {}, headers) {
      const res = await m.call('POST', '/v1/match/file', body, { headers });
      if (res.status !== 201 && res.status !== 200) throw new Error(`create ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async waitStatus(id, statuses, ms = 30_000) {
      let last: any;
      await waitFor(async () => {
        last = (await m.call('GET', `/v1/match/file/${id}`)).body;
        return statuses.includes(last.matching_status);
      }, ms).catch(() => {
        throw new Error(`timed out waiting for ${statuses}; last ${JSON.stringify(last)}`);
      });
      return last;
    },
    async stopWorker() {
      await queue.boss.offWork(def.name, { id: workerId });
    },
  };
  return ft;
}

export interface People {
  good: Row[];
  nobody: Row[];
}

/** n graph persons (clean name + email matches) and k invented rows that match nobody. */
export async function people(m: MatchTest, n: number, k: number): Promise<People> {
  const good = (await pickPersons(m, n)).map((p, i) => ({
    row_id: `g${i}`,
    email: p.email,
    first_name: title(p.first_name),
    last_name: title(p.last_name),
    zip: p.zip5,
  }));
  const nobody = Array.from({ length: k }, (_, i) => ({
    row_id: `n${i}`,
    email: `zq.nobody.${i}.8841@examplemail.com`,
    first_name: 'Zyxw',
    last_name: `Qqqvnone${i}`,
    zip: '99999',
  }));
  return { good, nobody };
}

export function toCsv(rows: Row[], columns = Object.keys(rows[0]!)): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${columns.join(',')}\n${rows.map((r) => columns.map((c) => cell(r[c])).join(',')).join('\n')}\n`;
}
export const toJsonl = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
export const gz = (s: string | Buffer) => gzipSync(s);

/** An Avro object container file (deflate) with an `emails` array column. */
export async function toAvro(rows: Row[]): Promise<Buffer> {
  const type = avro.Type.forSchema({
    type: 'record',
    name: 'Person',
    fields: [
      { name: 'row_id', type: 'string' },
      { name: 'first_name', type: ['null', 'string'], default: null },
      { name: 'last_name', type: ['null', 'string'], default: null },
      { name: 'zip', type: ['null', 'string'], default: null },
      { name: 'emails', type: { type: 'array', items: 'string' } },
    ],
  } as never);
  const enc = new avro.streams.BlockEncoder(type, { codec: 'deflate' } as never);
  const chunks: Buffer[] = [];
  enc.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    enc.on('end', () => resolve());
    enc.on('error', reject);
  });
  for (const r of rows)
    enc.write({
      row_id: r.row_id,
      first_name: r.first_name ?? null,
      last_name: r.last_name ?? null,
      zip: r.zip ?? null,
      emails: r.email ? [r.email] : [],
    });
  enc.end();
  await ended;
  return Buffer.concat(chunks);
}

/**
 * The fixture both file-match test files start from: the app with its resolution worker, 20 known and
 * 5 unknown people, a loopback webhook receiver and the webhook worker. `close()` undoes it all.
 */
export async function setupWithEvents() {
  const { startReceiver, startWebhookWorker } = await import('../webhooks/helpers.ts');
  const f = await setup();
  const p = await people(f, 20, 5);
  const receiver = await startReceiver();
  const hooks = await startWebhookWorker(f.t);
  return {
    f,
    p,
    receiver,
    async close() {
      await hooks.stop();
      await f.stopWorker();
      await receiver.close();
      await f.close();
    },
  };
}
