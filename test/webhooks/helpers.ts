import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { testStores } from '../helpers/stores.ts';
import type { TestApp } from '../helpers/app.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

/** What the receiver does with request n (0-based): answer a status, or 'hang' (never answer). */
export type Behaviour = (n: number) => number | 'hang';

/** A real HTTP receiver on loopback (port 0), recording every request with its raw body. */
export async function startReceiver(behaviour: Behaviour = () => 200) {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const action = behaviour(n);
      if (action === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(action, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs the webhook dispatcher on the shared test queue (as the worker role would); stop() leaves the queue running. */
export async function startWebhookWorker(t: TestApp) {
  const { queue } = await testStores();
  const def = t.services.webhookDispatcher.definition as JobDefinition;
  await queue.ensureQueue(def.name, def.queue);
  const id = await queue.work<any>(def.name, { batchSize: 1, pollingIntervalSeconds: 0.5, ...def.work }, async (jobs) => {
    for (const job of jobs) await def.handle(job.data, { id: job.id, retryCount: 0 });
  });
  return { stop: () => queue.boss.offWork(def.name, { id }) };
}

export async function ensureWebhookQueue(t: TestApp) {
  const { queue } = await testStores();
  const def = t.services.webhookDispatcher.definition;
  await queue.ensureQueue(def.name, def.queue);
}

export async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('waitFor timed out');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const readyData = { status: 'completed' as const, subtype: 'filter', audience_id: null, record_count: 1200 };

export async function db(): Promise<Kysely<DB>> {
  return (await testStores()).database.db;
}
