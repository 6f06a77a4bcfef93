/**
 * The export job of one delivery: rebuild the request from the snapshot the delivery pinned (its member
 * segments at their versions; a data release switched since fails it rather than export other
 * content), export the rows (src/export-engine), hand the parts to the destination (src/destinations),
 * then complete the delivery, charge it through billing (licenses, the file-match run's usage) and
 * publish delivery.completed in one transaction. A retry re-exports and overwrites the same part
 * names; the conditional processing -> completed move makes the charge happen once. The last failed
 * attempt (or a failure no retry can fix) fails the delivery, releases its reservation (nothing is
 * charged) and publishes delivery.failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { isDomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import { exportRows, ExportRequestError, type ExportWarehouse } from '../../export-engine/index.ts';
import type { DestinationRegistry, NetOptions } from '../../destinations/index.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import type { EventService } from '../webhooks/index.ts';
import type { DeletedSourceCheck } from './deleted-members.ts';
import { destinationDomainError, type DestinationService } from './destinations.ts';
import { DELIVERY_EXPORT_JOB } from './job-names.ts';
import { MATCH_RESULT_LEVELS } from './member-bases.ts';
import { DOWNLOAD_TTL_MS, type StoredPart } from './present.ts';
import type { Reservation } from '../billing/index.ts';
import { billingInput, type DeliveryBilling } from './pricing.ts';
import { exportFieldOf, type DeliverySnapshot, type DestinationKind, type RequestResolver, type ResolvedRequest } from './request.ts';
import { deliveryStore, type DeliveryRow } from './store.ts';

export const EXPORT_RETRY_LIMIT = 2;

export interface ExportJobDeps {
  db: Kysely<DB>;
  clock: Clock;
  dataDir: string;
  requests: RequestResolver;
  warehouse: ExportWarehouse;
  registry: DestinationRegistry;
  destinations: DestinationService;
  net: () => NetOptions;
  billing: DeliveryBilling;
  events: Pick<EventService, 'emit'>;
  personIds: (orgId: string) => Promise<{ orgClientCode: string; secret: string }>;
  /** Whether a segment the delivery's rows come from was deleted since it was accepted. */
  sourceDeleted: DeletedSourceCheck;
  /** The data release the warehouse reads now. */
  currentRelease: () => { major: number; minor: number };
  /** Where the current release's rendered rows of a key are, if built (rendered-rows.ts). */
  renderedRows?: () => Promise<(key: string) => string | null>;
  log?: { warn(obj: object, msg: string): void };
}

/** A failure a retry cannot fix: fail the delivery at once. */
class FinalFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const FINAL_CODES = new Set([
  'INVALID_DESTINATION_CONFIG',
  'DESTINATION_BLOCKED',
  'DESTINATION_AUTH_FAILED',
  'DESTINATION_WRITE_FAILED',
  'DESTINATION_NOT_FOUND',
]);

function failureOf(error: unknown): { code: string; reason: string; final: boolean } {
  if (error instanceof FinalFailure) return { code: error.code, reason: error.message, final: true };
  const mapped = destinationDomainError(error);
  if (isDomainError(mapped))
    return { code: mapped.code, reason: mapped.message, final: FINAL_CODES.has(mapped.code) || !mapped.code.startsWith('DESTINATION_') };
  if (error instanceof ExportRequestError) return { code: 'EXPORT_FAILED', reason: error.message, final: true };
  return { code: 'EXPORT_FAILED', reason: (error as Error)?.message ?? String(error), final: false };
}

export function createExportJob(deps: ExportJobDeps) {
  const { db, clock } = deps;

  /** The request the delivery names: its pinned snapshot (older rows: re-resolved, and refused if it changed). */
  async function requestOf(row: DeliveryRow): Promise<ResolvedRequest> {
    if (row.snapshot) {
      const snapshot = JSON.parse(row.snapshot) as DeliverySnapshot;
      const release = deps.currentRelease();
      if (release.major !== row.release_major || release.minor !== row.release_minor) {
        throw new FinalFailure(
          'DATA_RELEASE_CHANGED',
          `The data release changed from ${row.release_major}.${row.release_minor} to ${release.major}.${release.minor} after the delivery was accepted; request a new delivery.`,
        );
      }
      return deps.requests.fromSnapshot(snapshot, row.content_key ?? '');
    }
    const r = await deps.requests.resolve({ orgId: row.org_id, userId: row.created_by }, row.audience_id, {
      destination: row.destination as DestinationKind,
      ...(row.destination_id ? { destination_id: row.destination_id } : {}),
      ...(row.field_list ? { field_list: JSON.parse(row.field_list) as string[] } : { template_id: row.template_id ?? undefined }),
      include_unmatched: row.include_unmatched,
    });
    if (r.contentKey !== row.content_key) {
      throw new FinalFailure(
        'AUDIENCE_CHANGED',
        'The audience was refreshed or the data release changed after the delivery was accepted; request a new delivery.',
      );
    }
    return r;
  }

  async function run(row: DeliveryRow) {
    if (await deps.sourceDeleted(row)) {
      throw new FinalFailure(
        'SEGMENT_DELETED',
        'A segment of the audience was deleted after the delivery was accepted; nothing was exported or charged.',
      );
    }
    const r = await requestOf(row);
    const outputDir = path.join(deps.dataDir, 'exports', row.id);
    try {
      const ids = await deps.personIds(row.org_id);
      const renderedRows = await deps.renderedRows?.();
      const result = await exportRows({
        warehouse: deps.warehouse,
        members: r.members,
        fields: r.fields.map(exportFieldOf),
        personIds: { orgId: row.org_id, orgClientCode: ids.orgClientCode, secret: ids.secret },
        // Each matched row's level picks its id; each list member's bases, the fields it may carry (decision 051).
        ...(r.matched?.run.rowsPath
          ? { matched: { path: r.matched.run.rowsPath, includeUnmatched: row.include_unmatched, levels: MATCH_RESULT_LEVELS } }
          : {}),
        ...(r.memberBases ? { memberBases: r.memberBases } : {}),
        format: row.output_format as 'csv',
        compression: row.output_compression as 'none',
        outputDir,
        ...(renderedRows ? { renderedRows } : {}),
      });
      const target = { orgId: row.org_id, deliveryId: row.id };
      let delivered;
      if (row.destination === 'download') {
        delivered = await deps.registry.get('download')!.upload(result.parts, target, {}, null, deps.net());
      } else {
        const d = await deps.destinations.resolve(row.org_id, row.destination_id!);
        delivered = await d.destination.upload(result.parts, target, d.config, d.secrets, deps.net());
      }
      const parts: StoredPart[] = delivered.map((o, i) => ({
        name: o.name,
        location: o.location,
        bytes: o.bytes,
        rows: result.parts[i]!.rows,
      }));
      // The identities the delivery licenses: the exported members (unmatched input rows are no identity).
      return { r, result, parts, identities: await deps.requests.identities(r) };
    } finally {
      fs.rmSync(outputDir, { recursive: true, force: true });
    }
  }

  async function complete(row: DeliveryRow, out: Awaited<ReturnType<typeof run>>) {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const moved = await deliveryStore.finish(trx, row.org_id, row.id, {
        status: 'completed',
        completed_at: now,
        output_bytes: out.result.output_bytes,
        output_record_count: out.result.output_record_count,
        parts: JSON.stringify(out.parts),
        expires_at: new Date(now.getTime() + DOWNLOAD_TTL_MS),
      });
      if (!moved) return;
      // One charge under the delivery's key: identities without an active license, and the file-match
      // run's aggregate usage when no delivery charged it before (billing keeps both rules), never above
      // the estimate the delivery showed (its ceiling, decision 032). A delivery a
      // partner bills (an integration run's, decision 038) held no reservation and is charged nothing.
      const charge = row.unbilled
        ? { cents: 0, amount: 0, billable_count: 0 }
        : await deps.billing.chargeDelivery(trx, {
            ...billingInput(row.org_id, out.r),
            identities: out.identities,
            idempotencyKey: row.id,
            ceilingCents: row.estimated_cost_cents,
          });
      await deliveryStore.setCost(trx, row.org_id, row.id, charge.cents, charge.billable_count);
      await deps.events.emit(trx, {
        orgId: row.org_id,
        type: 'delivery.completed',
        subject: { kind: 'delivery', id: row.id, name: out.r.audience.name },
        data: {
          status: 'completed',
          delivery_id: row.id,
          audience_id: row.audience_id,
          audience_version: row.audience_version,
          destination: row.destination,
          output_format: row.output_format,
          output_record_count: out.result.output_record_count,
          output_bytes: out.result.output_bytes,
          part_count: out.parts.length,
          cost: charge.amount,
          download_urls_expire_at: row.destination === 'download' ? new Date(now.getTime() + DOWNLOAD_TTL_MS).toISOString() : null,
          completed_at: now.toISOString(),
        },
        webhookUrl: row.webhook_url,
      });
    });
  }

  async function fail(row: DeliveryRow, code: string, reason: string) {
    const now = clock.now();
    // Released first (a release is its own write, never charged later: settling needs a reserved row),
    // so a delivery seen as failed has nothing charged.
    for (const r of JSON.parse(row.reservations) as Reservation[]) await deps.billing.releaseDelivery(r);
    await db.transaction().execute(async (trx) => {
      const ok = await deliveryStore.finish(trx, row.org_id, row.id, {
        status: 'failed',
        content_key: null,
        failure_reason: reason,
        error_code: code,
      });
      if (!ok) return;
      await deps.events.emit(trx, {
        orgId: row.org_id,
        type: 'delivery.failed',
        subject: { kind: 'delivery', id: row.id, name: null },
        data: {
          status: 'failed',
          delivery_id: row.id,
          audience_id: row.audience_id,
          audience_version: row.audience_version,
          destination: row.destination,
          failure_reason: reason,
          error_code: code,
          cost: 0,
          failed_at: now.toISOString(),
        },
        webhookUrl: row.webhook_url,
      });
    });
  }

  const definition: JobDefinition<{ orgId: string; deliveryId: string }> = {
    name: DELIVERY_EXPORT_JOB,
    queue: { retryLimit: EXPORT_RETRY_LIMIT, retryDelay: 2, retryBackoff: false, expireInSeconds: 3600 },
    work: { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2, includeMetadata: true } as JobDefinition['work'],
    async handle(data, job) {
      const row = await deliveryStore.find(db, data.orgId, data.deliveryId);
      if (!row || row.status !== 'processing') return { skipped: true };
      let out;
      try {
        out = await run(row);
      } catch (error) {
        const f = failureOf(error);
        if (!f.final && job.retryCount < EXPORT_RETRY_LIMIT) throw error;
        deps.log?.warn({ deliveryId: row.id, code: f.code, err: error }, 'delivery failed');
        await fail(row, f.code, f.reason);
        return { failed: f.code };
      }
      await complete(row, out);
      return { completed: true };
    },
  };
  return { definition };
}
