import { openDatabase, type Database } from '../../src/db/database.ts';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';

/**
 * One control-plane store per test worker: PGlite in memory, or the PostgreSQL server named by
 * DATABASE_URL (CI runs both). Starting PGlite costs ~2 s, so it is shared; tests isolate themselves
 * by creating their own organizations.
 */
let shared: Promise<{ database: Database; queue: JobQueue }> | null = null;

export function testStores(): Promise<{ database: Database; queue: JobQueue }> {
  shared ??= (async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null, poolSize: 5 });
    // On PostgreSQL both test workers share one database: give each its own pg-boss schema, or one
    // worker's job handlers (with their own test settings) would take the other's jobs.
    const queue = createJobQueue(database, database.kind === 'postgres' ? { schema: `pgboss_test_${process.env.VITEST_POOL_ID ?? '0'}` } : {});
    await queue.start();
    return { database, queue };
  })();
  return shared;
}

export const onPostgres = () => !!process.env.DATABASE_URL;
