import { openDatabase, type Database } from '../../src/db/database.ts';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';

/**
 * One control-plane store per test worker: PGlite in memory, or the worker's own PostgreSQL database
 * (test/setup/worker-database.ts; CI runs both). Starting PGlite costs ~2 s, so it is shared; tests
 * isolate themselves by creating their own organizations.
 */
let shared: Promise<{ database: Database; queue: JobQueue }> | null = null;

export function testStores(): Promise<{ database: Database; queue: JobQueue }> {
  shared ??= (async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null, poolSize: 5 });
    const queue = createJobQueue(database, {});
    await queue.start();
    return { database, queue };
  })();
  return shared;
}

/** The worker's stores if a test file of this worker has opened them, else null (nothing is opened). */
export const openedTestStores = (): Promise<{ database: Database; queue: JobQueue }> | null => shared;

export const onPostgres = () => !!process.env.DATABASE_URL;
