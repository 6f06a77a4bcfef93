/**
 * The collection refresh job (pg-boss, every 15 minutes, and on demand): settles execution-key runs whose
 * match has resolved (completed with its counts, or failed), captures the matched identities of each
 * completed run into the organization's default collection while it is active (each identity expiring
 * `retention_days` after its capture), deletes expired identities, and refreshes every collection's
 * unique_identity_count. Idempotent: a run is captured once (compare-and-set on its status), identities
 * are keyed by collection, run and person.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { retentionMs, type CollectionService } from './collections.ts';
import { collectionStore } from './collections-store.ts';
import { integrationStore, type RunRow } from './store.ts';

export const COLLECTION_REFRESH_JOB = 'integrations.collections.refresh';
export const COLLECTION_REFRESH_CRON = '*/15 * * * *';

/** The source kind of a run for the collection filter. */
export const sourceKindOf = (run: Pick<RunRow, 'kind' | 'oauth_client_id'>): 'recurring' | 'batch' | 'file' =>
  run.oauth_client_id || run.kind === 'file_enrichment' ? 'file' : 'batch';

/**
 * Completes a run and captures its matched person keys into the organization's default collection, in
 * the caller's transaction: `complete(capturedAt)` is the run's compare-and-set to `completed` (it stores
 * `captured_at`, null when nothing is captured); identities are written only when it moved and the
 * collection is active, so a replayed or retried completion never captures twice. Returns whether it moved.
 */
export async function completeCapturing(
  trx: Kysely<DB>,
  collections: Pick<CollectionService, 'ensureDefault'>,
  run: RunRow,
  keys: readonly string[],
  at: { boundaryAt: Date; now: Date },
  complete: (capturedAt: Date | null) => Promise<boolean>,
): Promise<boolean> {
  const collection = await collections.ensureDefault(run.org_id, trx);
  const capture = collection.status === 'active' && keys.length > 0;
  const { now } = at;
  if (!(await complete(capture ? now : null))) return false;
  if (!capture) return true;
  const expiresAt = new Date(now.getTime() + retentionMs(collection.retention_days));
  await collectionStore.insertIdentities(
    trx,
    [...new Set(keys)].map((k) => ({
      collection_id: collection.id,
      org_id: run.org_id,
      run_id: run.id,
      person_key: k,
      provider: run.provider,
      connection_id: run.connection_id,
      source_kind: sourceKindOf(run),
      boundary_at: at.boundaryAt,
      captured_at: now,
      expires_at: expiresAt,
    })),
  );
  await collectionStore.update(trx, collection.id, { last_captured_at: now, updated_at: now });
  return true;
}

export interface CaptureDeps {
  db: Kysely<DB>;
  clock: Clock;
  collections: Pick<CollectionService, 'ensureDefault'>;
  segments: Pick<SegmentsApi, 'findSegment'>;
  events: Pick<EventService, 'emit'>;
  /** The person keys (as text) of a Parquet member set. */
  readMembers(parquetPath: string): Promise<string[]>;
}

export function createCollectionRefresh(deps: CaptureDeps) {
  const { db, clock } = deps;

  /** integration_run.completed / .failed (decision 038's events), in the transaction that ends the run. */
  async function emitEnd(
    trx: Kysely<DB>,
    run: RunRow,
    status: 'completed' | 'failed',
    counts: Record<string, number>,
    failure: { code: string; message: string } | null,
    at: Date,
  ) {
    await deps.events.emit(trx, {
      orgId: run.org_id,
      type: `integration_run.${status}`,
      subject: { kind: 'integration_run', id: run.id, name: null },
      data: {
        status,
        run_id: run.id,
        provider: run.provider,
        connection_id: run.connection_id,
        kind: run.kind,
        billing_source: run.billing_source,
        counts,
        failure_code: failure?.code ?? null,
        failure_message: failure?.message ?? null,
        completed_at: at.toISOString(),
      },
    });
  }

  async function fail(run: RunRow, code: string, message: string): Promise<'failed'> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      if (
        await integrationStore.moveRun(trx, run.id, ['created', 'processing'], {
          status: 'failed',
          failure_code: code,
          failure_message: message,
          updated_at: now,
          completed_at: now,
        })
      ) {
        await emitEnd(trx, run, 'failed', JSON.parse(run.counts) as Record<string, number>, { code, message }, now);
      }
    });
    return 'failed';
  }

  async function settle(run: RunRow): Promise<'completed' | 'failed' | 'waiting'> {
    const segment = run.match_segment_id ? await deps.segments.findSegment(db, run.org_id, run.match_segment_id) : undefined;
    const now = clock.now();
    if (run.match_segment_id && !segment) return fail(run, 'MATCH_DELETED', 'The match of this run was deleted before it resolved.');
    if (!segment || segment.status === 'pending') return 'waiting';
    if (segment.status !== 'active') return fail(run, 'MATCH_FAILED', segment.error_message ?? `The match is ${segment.status}.`);
    const keys = segment.members_path ? await deps.readMembers(segment.members_path) : [];
    const input = segment.input_record_count ?? 0;
    const counts = {
      input,
      matched: Math.min(segment.match_count ?? 0, input),
      delivered: 0,
      applied: 0,
      unchanged: 0,
      skipped: 0,
      failed: 0,
    };
    await db.transaction().execute(async (trx) => {
      const moved = await completeCapturing(trx, deps.collections, run, keys, { boundaryAt: now, now }, (capturedAt) =>
        integrationStore.moveRun(trx, run.id, ['created', 'processing'], {
          status: 'completed',
          counts: JSON.stringify(counts),
          boundary_at: now,
          updated_at: now,
          completed_at: now,
          captured_at: capturedAt,
        }),
      );
      if (moved) await emitEnd(trx, run, 'completed', counts, null, now);
    });
    return 'completed';
  }

  /** One pass (of one organization, or all): settle and capture, expire, recount. */
  async function refresh(orgId?: string) {
    const outcome = { completed: 0, failed: 0, waiting: 0, expired: 0, collections: 0 };
    for (const run of await collectionStore.openPartnerRuns(db, orgId)) outcome[await settle(run)]++;
    const now = clock.now();
    outcome.expired = await collectionStore.expire(db, now, orgId);
    for (const c of await collectionStore.allIds(db, orgId)) {
      const n = await collectionStore.countDistinct(db, c.id, {}, now);
      await collectionStore.update(db, c.id, { identity_count: n, count_refreshed_at: now });
      outcome.collections++;
    }
    return outcome;
  }

  const definition: JobDefinition<{ org_id?: string }> = {
    name: COLLECTION_REFRESH_JOB,
    queue: { retryLimit: 2, retryDelay: 60 },
    handle: async (data) => refresh(data?.org_id),
  };

  return { refresh, definition };
}
