import { PgBoss, fromPglite, type Job, type SendOptions, type WorkOptions } from 'pg-boss';
import { CompiledQuery, type Kysely } from 'kysely';
import type { JobSettings } from '../config/jobs.ts';
import type { Database } from '../db/database.ts';

export type JobHandler<T> = (jobs: Job<T>[]) => Promise<unknown>;

/**
 * The job queue: pg-boss on the control-plane database (PGlite or PostgreSQL).
 * `send` may take the Kysely transaction the job belongs to: the job row is then written in that
 * transaction, so a rolled-back state change never leaves a job behind (the outbox property).
 */
export interface JobQueue {
  boss: PgBoss;
  ensureQueue(
    name: string,
    options?: { retryLimit?: number; retryDelay?: number; retryBackoff?: boolean; expireInSeconds?: number },
  ): Promise<void>;
  send<T extends object>(name: string, data: T, options?: SendOptions, trx?: Kysely<any>): Promise<string | null>;
  work<T>(name: string, options: WorkOptions, handler: JobHandler<T>): Promise<string>;
  /**
   * Asks this process's workers of `name` to look for jobs now rather than at their next poll. A job sent inside a
   * transaction is only visible once it commits, so the sender wakes them after its commit; on PGlite, where
   * workers poll, a user's upload would otherwise wait up to a polling interval to start. No worker here: nothing.
   */
  wake(name: string): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** pg-boss's database interface over a Kysely transaction. */
function transactionAdapter(trx: Kysely<any>) {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows as any[] };
    },
  };
}

/**
 * Claims are renewed by heartbeat (issue 12): every queue gets `heartbeatSeconds`, so a job whose worker
 * died (kill -9, a lost host) is failed and retried on another worker once its heartbeat is that old and
 * the supervisor has looked, instead of when `expireInSeconds` (hours for a file match) runs out.
 */
const DEFAULT_JOB_SETTINGS: JobSettings = { heartbeatSeconds: 30, superviseSeconds: 30, fileMatchConcurrency: 2 };

export function createJobQueue(database: Database, options: { schema?: string; settings?: JobSettings } = {}): JobQueue {
  const settings = options.settings ?? DEFAULT_JOB_SETTINGS;
  const timers = { superviseIntervalSeconds: settings.superviseSeconds, monitorIntervalSeconds: settings.superviseSeconds };
  // On PostgreSQL, LISTEN/NOTIFY wakes a worker as soon as a job is sent instead of at its next poll
  // (polling stays as the fallback); pg-boss keeps its own small pool for the session-pinned listener.
  // On PGlite it is off: with its single connection, notifications arriving during our transactions
  // stalled delivery under load (bench/webhooks.ts hung at 150 events); workers poll instead.
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite as any), backend: 'pglite', schema: options.schema, ...timers })
      : new PgBoss({
          connectionString: (database.pool!.options as { connectionString: string }).connectionString,
          max: 4,
          schema: options.schema,
          useListenNotify: true,
          ...timers,
        });
  boss.on('error', (error) => {
    // pg-boss reports maintenance and polling errors here; they are retried on its own schedule.
    if (!stopped) console.error('[jobs]', error);
  });
  /**
   * pg-boss keeps a per-instance cache of queues, filled lazily by the first send and refreshed on an
   * interval; createQueue() does not fill it. A send inside one of our transactions that misses the
   * cache looks the queue up on the main connection, which on PGlite waits for that very transaction.
   * getBlockedKeys() is the public call that fills the cache entry (it then refuses non-FIFO queues,
   * which is expected and ignored).
   */
  async function warmQueueCache(name: string): Promise<void> {
    await boss.getBlockedKeys(name).catch(() => {});
  }
  let started: Promise<unknown> | null = null;
  let stopped = false;
  const known = new Set<string>();
  const workerIds = new Map<string, string[]>();

  return {
    boss,
    async ensureQueue(name, queueOptions = {}) {
      if (known.has(name)) return;
      const existing = await boss.getQueue(name);
      if (!existing) await boss.createQueue(name, { notify: true, heartbeatSeconds: settings.heartbeatSeconds, ...queueOptions });
      // Queues made before heartbeats (or under another setting) get the current one.
      else if (existing.heartbeatSeconds !== settings.heartbeatSeconds)
        await boss.updateQueue(name, { heartbeatSeconds: settings.heartbeatSeconds });
      await warmQueueCache(name);
      known.add(name);
    },
    send(name, data, sendOptions = {}, trx) {
      if (trx && !known.has(name)) {
        // pg-boss would look the queue up outside the transaction; on PGlite that waits for the
        // transaction we are in, forever. Queues must be ensured before a transaction sends to them.
        throw new Error(`Job queue "${name}" was not ensured before sending inside a transaction`);
      }
      return boss.send(name, data, trx ? { ...sendOptions, db: transactionAdapter(trx) } : sendOptions);
    },
    async work(name, workOptions, handler) {
      const id = await boss.work(name, workOptions, handler as any);
      workerIds.set(name, [...(workerIds.get(name) ?? []), id]);
      return id;
    },
    wake(name) {
      for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
    },
    async start() {
      started ??= boss.start();
      await started;
    },
    async stop() {
      if (!started || stopped) return;
      stopped = true;
      await boss.stop({ graceful: true, close: false, timeout: 15_000 });
    },
  };
}
