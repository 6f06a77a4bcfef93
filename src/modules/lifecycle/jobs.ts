/**
 * Background jobs of segments and audiences: the periodic expiry sweep and the recount that lands a
 * count a request could not wait for.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { countComposition, includesMatched, loadComposition } from '../audiences/composition.ts';
import { audienceStore } from '../audiences/store.ts';
import { floorCount } from '../segments/common.ts';
import { RECOUNT_JOB, type RecountJobData } from '../segments/counting.ts';
import { singleSegmentQuery } from '../segments/membership.ts';
import type { GraphPorts } from '../segments/ports.ts';
import { segmentStore } from '../segments/store.ts';
import { sweepExpired } from './sweep.ts';

export const EXPIRY_SWEEP_JOB = 'lifecycle-expiry-sweep';
/** Every 15 minutes: expiry is date-granular for persistent resources and hour-granular for scratch ones. */
export const EXPIRY_SWEEP_CRON = '*/15 * * * *';

export interface LifecycleDeps {
  db: Kysely<DB>;
  graph: GraphPorts;
  clock: Clock;
}

/** Counts one segment or audience at the version the job was made for; a stale job does nothing. */
export async function runRecount(deps: LifecycleDeps, job: RecountJobData): Promise<void> {
  const { db, graph } = deps;
  if (job.kind === 'segment') {
    const s = await segmentStore.find(db, job.orgId, job.id);
    if (!s || s.current_version !== job.version) return;
    const { total } = await graph.count(singleSegmentQuery(s));
    await db.updateTable('segments').set({ ...floorCount(total) })
      .where('org_id', '=', job.orgId).where('id', '=', job.id).where('current_version', '=', job.version).execute();
    return;
  }
  const a = await audienceStore.find(db, job.orgId, job.id);
  if (!a || a.snapshot_version !== job.version) return;
  const refs = (await audienceStore.refs(db, job.orgId, [a.id])).get(a.id)!;
  const loaded = await loadComposition(db, job.orgId, refs, a.set_logic as 'union' | 'intersection');
  let count = await countComposition(graph, loaded, 10 * 60_000);
  // A single filter segment whose own count is still running: count the composition directly.
  if (count.deferred) count = { ...floorCount((await graph.count({ kind: 'composition', composition: loaded.composition })).total), deferred: false };
  await audienceStore.landCount(db, job.orgId, a.id, job.version, {
    record_count: count.record_count, record_count_reason: count.record_count_reason,
    matched_record_count: includesMatched(loaded) ? (count.matched_record_count ?? null) : null,
  });
}

export function lifecycleJobDefinitions(deps: LifecycleDeps): JobDefinition[] {
  return [
    {
      name: RECOUNT_JOB,
      queue: { retryLimit: 5, retryDelay: 30, retryBackoff: true },
      handle: (data: RecountJobData) => runRecount(deps, data),
    },
    {
      name: EXPIRY_SWEEP_JOB,
      queue: { retryLimit: 2, retryDelay: 60 },
      handle: () => sweepExpired(deps.db, deps.clock),
    },
  ];
}

/** Registers the periodic sweep (an upsert, safe from every process); needs the queue to exist. */
export async function scheduleExpirySweep(queue: JobQueue): Promise<void> {
  await queue.ensureQueue(EXPIRY_SWEEP_JOB, { retryLimit: 2, retryDelay: 60 });
  await queue.boss.schedule(EXPIRY_SWEEP_JOB, EXPIRY_SWEEP_CRON, {}, { tz: 'UTC' });
}
