/**
 * Deliveries over HTTP: the segments test graph and app, the delivery export worker and the webhook
 * worker on the shared test queue, a loopback webhook receiver, and helpers to create and await
 * deliveries and read the usage ledger.
 */
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { bearer } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { setup as segSetup, type SegTest } from '../segments/setup.ts';
import { startReceiver, startWebhookWorker, waitFor } from '../webhooks/helpers.ts';

export interface DeliveryTest extends SegTest {
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** A filter audience over `filters`; returns its id. */
  audience(filters: unknown[]): Promise<string>;
  deliver(audienceId: string, body?: Record<string, unknown>, token?: string): Promise<{ status: number; body: any }>;
  waitDone(audienceId: string, deliveryId: string): Promise<any>;
  /** GET a signed download URL through the app (its origin swapped for inject). */
  download(url: string): Promise<{ status: number; raw: Buffer; body: any }>;
  /** Stops the export worker (accepted deliveries stay processing) and starts it again. */
  pauseWorker(): Promise<void>;
  resumeWorker(): Promise<void>;
  ledger(): Promise<
    { id: string; kind: string; quantity: number; unit_price_cents: number; amount_cents: number; status: string; created_at: Date }[]
  >;
  /** Ledger rows written after `before` (a ledger() result), in kind order. */
  ledgerAfter(
    before: { id: string }[],
  ): Promise<{ id: string; kind: string; quantity: number; unit_price_cents: number; amount_cents: number; status: string }[]>;
  close(): Promise<void>;
}

export async function setupDeliveries(options: { dataDir?: string } = {}): Promise<DeliveryTest> {
  const s = await segSetup(new Date().toISOString(), options.dataDir);
  const { queue, database } = await testStores();
  const def = s.t.services.deliveries.jobDefinitions()[0] as JobDefinition;
  await queue.ensureQueue(def.name, def.queue);
  const startWorker = () =>
    queue.work<any>(def.name, { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true } as never, async (jobs) => {
      for (const job of jobs) await def.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
    });
  let workerId = await startWorker();
  const hooks = await startWebhookWorker(s.t);
  const receiver = await startReceiver();
  const ledger = (): ReturnType<DeliveryTest['ledger']> =>
    database.db
      .selectFrom('usage_ledger')
      .select(['id', 'kind', 'quantity', 'unit_price_cents', 'amount_cents', 'status', 'created_at'])
      .where('org_id', '=', s.org.orgId)
      .orderBy('created_at')
      .orderBy('kind')
      .execute() as never;
  return {
    ...s,
    receiver,
    async audience(filters) {
      const seg = await s.segment({ filters, create_audience: true });
      return seg.audience_id as string;
    },
    deliver: (audienceId, body = {}, token) => s.call('POST', `/v1/audiences/${audienceId}/deliveries`, body, token),
    async waitDone(audienceId, deliveryId) {
      let last: any;
      await waitFor(async () => {
        last = (await s.call('GET', `/v1/audiences/${audienceId}/deliveries/${deliveryId}`)).body;
        return last.status !== 'processing';
      }, 60_000).catch(() => {
        throw new Error(`delivery ${deliveryId} still processing: ${JSON.stringify(last)}`);
      });
      return last;
    },
    async download(url) {
      const res = await s.t.app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') });
      return {
        status: res.statusCode,
        raw: res.rawPayload,
        body: res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : null,
      };
    },
    pauseWorker: () => queue.boss.offWork(def.name, { id: workerId }),
    async resumeWorker() {
      workerId = await startWorker();
    },
    ledger,
    async ledgerAfter(before) {
      const seen = new Set(before.map((r) => r.id));
      return (await ledger()).filter((r) => !seen.has(r.id)).sort((a, b) => a.kind.localeCompare(b.kind));
    },
    async close() {
      // Leave no event deliveries behind for later test files of this worker (the receiver closes now).
      await waitFor(
        async () =>
          !(await database.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('org_id', '=', s.org.orgId)
            .where('status', '=', 'pending')
            .executeTakeFirst()),
        30_000,
      ).catch(() => undefined);
      await queue.boss.offWork(def.name, { id: workerId });
      await hooks.stop();
      await receiver.close();
      await s.t.app.close();
    },
  };
}

export { bearer };

/** Cents of `n` records at `perRecord` cents under enterprise terms (15% discount, rounded half up): fixed arithmetic. */
export const enterpriseCents = (perRecord: number, n: number): number => Math.round((perRecord * n * 8500) / 10_000);
