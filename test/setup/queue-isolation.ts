/**
 * Test files of one worker run one after another on the worker's shared stores (isolate: false), so they
 * share its pg-boss queues. Without this, a file's worker could first run jobs an earlier file left
 * queued (an export of an organization whose graph folder is gone, retried and held until its heartbeat
 * runs out), and a worker an earlier file forgot to stop could take this file's jobs with a closed app.
 * Each file therefore starts with empty queues and ends with none of its workers still polling.
 * Nothing is opened here: a file that never touched the stores has nothing to clean.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { openedTestStores } from '../helpers/stores.ts';

async function stopWorkers(): Promise<void> {
  const stores = openedTestStores();
  if (!stores) return;
  const { queue } = await stores;
  const names = new Set(queue.boss.getWipData().map((worker) => worker.name));
  await Promise.allSettled([...names].map((name) => queue.boss.offWork(name, { wait: false })));
}

beforeAll(async () => {
  await stopWorkers();
  const stores = openedTestStores();
  // Row deletes, not pg-boss's TRUNCATE: a truncate would wait behind any transaction still open on the table.
  if (stores) await sql`DELETE FROM pgboss.job`.execute((await stores).database.db);
});

afterAll(stopWorkers);
