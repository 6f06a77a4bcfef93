/**
 * Counting with a deadline. A count that finishes within the deadline is shown at once; one that
 * runs longer (or fails) leaves record_count null and a durable `recount` job lands it later, so a
 * slow warehouse never holds a request and a crash never loses the count.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { MembershipQuery } from '../../graph/membership/types.ts';
import { floorCount, within, type ShownCount } from './common.ts';
import type { GraphPorts } from './ports.ts';

export const RECOUNT_JOB = 'recount';

export interface RecountJobData {
  orgId: string;
  kind: 'segment' | 'audience';
  id: string;
  /** Segment current_version or audience snapshot_version the count is for; stale jobs do nothing. */
  version: number;
}

export type CountOutcome = ShownCount & { deferred: boolean; matched_record_count?: number | null };

export async function countWithin(graph: GraphPorts, query: MembershipQuery, timeoutMs: number): Promise<CountOutcome> {
  const r = await within(graph.count(query), timeoutMs);
  if (r && 'value' in r) {
    const matched = r.value.matched === null ? null : floorCount(r.value.matched).record_count;
    return { ...floorCount(r.value.total), matched_record_count: matched, deferred: false };
  }
  return { record_count: null, record_count_reason: 'counting', deferred: true };
}

export function createRecountScheduler(queue: JobQueue) {
  return {
    /** Call before opening a transaction: creating a queue inside an open embedded transaction would wait on it. */
    async ready(): Promise<void> {
      await queue.ensureQueue(RECOUNT_JOB, { retryLimit: 5, retryDelay: 30, retryBackoff: true });
    },
    async schedule(trx: Kysely<DB>, data: RecountJobData): Promise<void> {
      await queue.send(RECOUNT_JOB, data, { retryLimit: 5, retryDelay: 30, retryBackoff: true }, trx);
    },
  };
}

export type RecountScheduler = ReturnType<typeof createRecountScheduler>;
