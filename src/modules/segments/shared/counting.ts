/**
 * Counting with a deadline. A count that finishes within the deadline is shown at once; one that
 * runs longer (or fails) leaves record_count null and a durable `recount` job lands it later, so a
 * slow warehouse never holds a request and a crash never loses the count.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { JobQueue } from '../../../jobs/queue.ts';
import { WarehouseTimeoutError } from '../../../graph/index.ts';
import type { MembershipQuery } from '../../../graph/index.ts';
import type { Measured, Privacy } from '../../privacy/index.ts';
import { within, type ShownCount } from './rules.ts';
import type { GraphPorts } from './ports.ts';

export const RECOUNT_JOB = 'recount';

export interface RecountJobData {
  orgId: string;
  kind: 'segment' | 'audience';
  id: string;
  /** Segment current_version or audience snapshot_version the count is for; stale jobs do nothing. */
  version: number;
}

export type CountOutcome = ShownCount & {
  deferred: boolean;
  matched_record_count?: number | null;
  /** The count statement ran past WAREHOUSE_STATEMENT_TIMEOUT_MS and was interrupted (record_count_reason `count_failed`). */
  interrupted?: WarehouseTimeoutError;
};

/**
 * A graph count as stored and shown: through the privacy layer (noised; null below the floor). With the
 * measured member set (graph-ports.ts), noise and threshold follow the set (docs/decisions/052), so a
 * capped segment, a new version or a forced refresh of the same people shows the same number.
 */
export function protectedCount(
  privacy: Privacy,
  query: MembershipQuery,
  value: { total: number; matched: number | null; measured?: Measured },
): CountOutcome {
  const question = privacy.question(query);
  const set = value.measured?.total;
  if (set) {
    const matched =
      set.matched === null || value.matched === null
        ? null
        : privacy.shownCount({ question, trueCount: set.matched.n, set: { ...set, ...set.matched }, facet: 'matched' }).record_count;
    return { ...privacy.shownCount({ question, trueCount: set.n, set }), matched_record_count: matched, deferred: false };
  }
  const matched = value.matched === null ? null : privacy.shownCount({ question, trueCount: value.matched, facet: 'matched' }).record_count;
  return { ...privacy.shownCount({ question, trueCount: value.total }), matched_record_count: matched, deferred: false };
}

export async function countWithin(graph: GraphPorts, query: MembershipQuery, timeoutMs: number, privacy: Privacy): Promise<CountOutcome> {
  const r = await within(graph.count(query), timeoutMs);
  if (r && 'value' in r) return protectedCount(privacy, query, r.value);
  // Interrupted past the statement timeout: it would be again, so no recount is scheduled.
  if (r && r.error instanceof WarehouseTimeoutError)
    return { record_count: null, record_count_reason: 'count_failed', deferred: false, interrupted: r.error };
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
