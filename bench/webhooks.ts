/**
 * Webhook delivery benchmark on the embedded store (PGlite + pg-boss): events emitted, each in its own
 * transaction, to one fast loopback receiver; reports events delivered per second and emit-to-receipt
 * lag p50/p99. Run: npx tsx bench/webhooks.ts [events] [emit rate per second, 0 = as fast as possible]
 * (WEBHOOK_CONCURRENCY applies). At full speed the lag measures the backlog; give a rate below the
 * delivered rate to measure the lag of a healthy system.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { openDatabase } from '../src/db/database.ts';
import { createJobQueue } from '../src/jobs/queue.ts';

import { startJobs } from '../src/jobs/worker.ts';
import { systemClock } from '../src/lib/clock.ts';

const total = Number(process.argv[2] ?? 1000);
const rate = Number(process.argv[3] ?? 0);
const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-webhooks-'));
// Embedded by default; DATABASE_URL=postgres://... measures the same on PostgreSQL (with LISTEN/NOTIFY).
// The receiver is on loopback: private targets must be allowed explicitly (decision 027).
const config = loadConfig({ OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true', ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir });
const queue = createJobQueue(database);
const { services, app } = await build(config, { database, queue, clock: systemClock, logger: false });
await app.ready();

const lags: number[] = [];
const emittedAt = new Map<string, number>();
let done: () => void;
const allReceived = new Promise<void>((resolve) => (done = resolve));
const server = createServer((req, res) => {
  const id = req.headers['x-svc-event-id'] as string;
  req.resume();
  req.on('end', () => {
    res.writeHead(204).end();
    const at = emittedAt.get(id);
    if (at !== undefined) {
      lags.push(performance.now() - at);
      emittedAt.delete(id);
      if (lags.length === total) done();
    }
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const org = await services.organizations.createOrganization({ name: 'Bench', tier: 'enterprise' });
await services.webhooks.setUrl(org.id, url);
const worker = await startJobs(queue, services.jobDefinitions(), { work: true });

const started = performance.now();
let emitted = 0;
// Emit at a steady pace across the run (like emitters would), 10 producers in parallel.
await Promise.all(
  Array.from({ length: 10 }, async () => {
    while (emitted < total) {
      const n = emitted++;
      // Paced mode: event n is due at n / rate seconds after the start.
      if (rate > 0) await new Promise((r) => setTimeout(r, Math.max(0, started + (n * 1000) / rate - performance.now())));
      await database.db.transaction().execute(async (trx) => {
        const t0 = performance.now();
        const { eventId } = await services.events.emit(trx, {
          orgId: org.id,
          type: 'segment.ready',
          subject: { kind: 'segment', id: 'seg_bench', name: 'Bench' },
          data: { status: 'completed', subtype: 'filter', audience_id: null, record_count: 1000 },
        });
        emittedAt.set(eventId, t0);
      });
    }
  }),
);
const emitSeconds = (performance.now() - started) / 1000;
await allReceived;
const seconds = (performance.now() - started) / 1000;

lags.sort((a, b) => a - b);
const pct = (p: number) => Math.round(lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))]!);
console.log(
  JSON.stringify({
    store: config.databaseUrl ? 'PostgreSQL' : 'embedded (PGlite)',
    events: total,
    target_emit_rate: rate || 'max',
    concurrency: config.webhooks.concurrency,
    emit_per_second: Math.round(total / emitSeconds),
    delivered_per_second: Math.round(total / seconds),
    lag_ms: { p50: pct(50), p99: pct(99), max: Math.round(lags[lags.length - 1]!) },
  }),
);
await worker.stop();
server.close();
await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
