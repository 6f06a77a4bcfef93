import type { WorkOptions } from 'pg-boss';
import type { JobQueue } from './queue.ts';

/**
 * A background job kind: its queue name, queue options and handler. Modules export their job
 * definitions; the worker role registers them all. API-only processes only send.
 */
export interface JobDefinition<T = any> {
  name: string;
  queue?: { retryLimit?: number; retryDelay?: number; retryBackoff?: boolean; expireInSeconds?: number };
  /**
   * With batchSize > 1 the jobs of a batch run concurrently; if any fails, the whole batch is failed
   * and retried by pg-boss, so such handlers must be idempotent per job.
   */
  // With LISTEN/NOTIFY on (PostgreSQL) pg-boss otherwise polls only every 30 s, and delayed jobs
  // (retries, startAfter) are never notified: the 2 s fallback keeps them timely.
  work?: WorkOptions;
  handle(data: T, job: { id: string; retryCount: number }): Promise<unknown>;
}

export interface Worker {
  stop(): Promise<void>;
}

/** Creates every queue (senders need them too) and, when `work` is true, starts consuming. */
export async function startJobs(queue: JobQueue, definitions: JobDefinition[], options: { work: boolean }): Promise<Worker> {
  await queue.start();
  for (const def of definitions) await queue.ensureQueue(def.name, def.queue);
  if (options.work) {
    for (const def of definitions) {
      await queue.work<any>(
        def.name,
        { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2, ...def.work },
        async (jobs) => {
          const results = await Promise.allSettled(
            jobs.map((job) => def.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 })),
          );
          const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
          if (failures.length === 1) throw failures[0];
          if (failures.length > 1) throw new AggregateError(failures, `${failures.length} of ${jobs.length} jobs failed`);
        },
      );
    }
  }
  return { stop: () => queue.stop() };
}
