/**
 * Background jobs of segments and audiences: the periodic expiry sweep and the recount that lands a
 * count a request could not wait for.
 */
import type { JobQueue } from '../../../jobs/queue.ts';
import type { JobDefinition } from '../../../jobs/worker.ts';
import { countComposition, includesCustomerList, loadComposition } from '../audience/composition.ts';
import { audienceStore } from '../audience/store.ts';
import type { SegmentsContext } from '../context.ts';
import { segmentStore } from '../segment/store.ts';
import { RECOUNT_JOB, protectedCount, type RecountJobData } from '../shared/counting.ts';
import { sweepExpired } from './sweep.ts';

export const EXPIRY_SWEEP_JOB = 'lifecycle-expiry-sweep';
/** Every 15 minutes: expiry is date-granular for persistent resources and hour-granular for scratch ones. */
export const EXPIRY_SWEEP_CRON = '*/15 * * * *';
const NO_DEADLINE = 10 * 60_000;

/** Counts one segment or audience at the version the job was made for; a stale job does nothing. */
export async function runRecount(ctx: SegmentsContext, job: RecountJobData): Promise<void> {
  const { db } = ctx;
  const { graph } = ctx.deps;
  if (job.kind === 'segment') {
    const s = await segmentStore.find(db, job.orgId, job.id);
    if (!s || s.current_version !== job.version) return;
    const count = await ctx.countSegment(s, NO_DEADLINE);
    await db
      .updateTable('segments')
      .set({ record_count: count.record_count, record_count_reason: count.record_count_reason })
      .where('org_id', '=', job.orgId)
      .where('id', '=', job.id)
      .where('current_version', '=', job.version)
      .execute();
    return;
  }
  const a = await audienceStore.find(db, job.orgId, job.id);
  if (!a || a.snapshot_version !== job.version) return;
  const refs = (await audienceStore.refs(db, job.orgId, [a.id])).get(a.id)!;
  const loaded = await loadComposition(ctx, job.orgId, refs, a.set_logic as 'union' | 'intersection');
  let count = await countComposition(ctx, loaded, NO_DEADLINE);
  // A single segment whose own count is still running: count the composition directly.
  if (count.deferred) {
    const query = { kind: 'composition', composition: loaded.composition } as const;
    count = protectedCount(ctx.privacy, query, await graph.count(query));
  }
  await audienceStore.landCount(db, job.orgId, a.id, job.version, {
    record_count: count.record_count,
    record_count_reason: count.record_count_reason,
    matched_record_count: includesCustomerList(ctx, loaded) ? (count.matched_record_count ?? null) : null,
  });
}

export function lifecycleJobDefinitions(ctx: SegmentsContext): JobDefinition[] {
  return [
    {
      name: RECOUNT_JOB,
      queue: { retryLimit: 5, retryDelay: 30, retryBackoff: true },
      handle: (data: RecountJobData) => runRecount(ctx, data),
    },
    {
      name: EXPIRY_SWEEP_JOB,
      queue: { retryLimit: 2, retryDelay: 60 },
      handle: () => sweepExpired(ctx.db, ctx.deps.clock),
    },
  ];
}

/** Registers the periodic sweep (an upsert, safe from every process); needs the queue to exist. */
export async function scheduleExpirySweep(queue: JobQueue): Promise<void> {
  await queue.ensureQueue(EXPIRY_SWEEP_JOB, { retryLimit: 2, retryDelay: 60 });
  await queue.boss.schedule(EXPIRY_SWEEP_JOB, EXPIRY_SWEEP_CRON, {}, { tz: 'UTC' });
}
