/**
 * Deliveries (spec 2 Delivery, 3, 4.4, 4.5, 6, 8): quotes, deliveries to a download, SFTP or S3 through
 * the export engine (src/export-engine) and destinations (src/destinations), signed download URLs, free
 * re-delivery, delivery events, and the organization's destinations. Owns deliveries, delivery_quotes
 * and delivery_destinations. Its seams with billing and privacy are the ports in pricing.ts.
 */
import type { Viewer } from '../../core/caller.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ExportWarehouse } from '../../export-engine/index.ts';
import { createDestinationRegistry, outboundLookup } from '../../destinations/index.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OutboundPolicy } from '../../lib/outbound/index.ts';
import { OBJECT_URL_MAX_SECONDS, OBJECT_URL_SECRET, PERSON_ID_SECRET } from '../../db/server-secrets.ts';
import { createUrlSigner, type UrlSigner } from '../../objects/signed-urls.ts';
import { ObjectStore } from '../../objects/store.ts';
import { SegmentErrors, type SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { destinationOperations } from './destination-operations.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';
import { createDestinationService } from './destinations.ts';
import { deletedSourceCheck } from './deleted-members.ts';
import { createDownloadHandler } from './download.ts';
import { createExportJob } from './export-job.ts';
import { DELIVERY_EXPORT_JOB } from './job-names.ts';
import { deliveryOperations } from './operations.ts';
import { deliveryPricing, type DeliveryBilling, type QuoteNumbers } from './pricing.ts';
import { createRequestResolver, type MatchedRun } from './request.ts';
import { createRenderedRows } from './rendered-rows.ts';
import { createRowReader } from './rows.ts';
import type { RenderedRowsSetting } from '../../config/exports.ts';
import { createDeliveryService } from './service.ts';

export interface DeliveriesDeps {
  db: Kysely<DB>;
  /** Server keys (wrapped under the master key): the destination-credentials key. */
  keys: Pick<ServerKeys, 'secret' | 'signing'>;
  queue: JobQueue;
  clock: Clock;
  dataDir: string;
  publicUrl: string;
  segments: SegmentsApi;
  catalog: () => Promise<{ fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] }>;
  warehouse: ExportWarehouse;
  /** WAREHOUSE_STATEMENT_TIMEOUT_MS: bounds the member count of a quote or request. */
  statementTimeoutMs?: number;
  organizations: { findOrganization(orgId: string): Promise<{ tier: string; client_code: string } | undefined> };
  events: Pick<EventService, 'emit' | 'validateWebhookUrl'>;
  /** Billing's license-aware delivery API. */
  billing: DeliveryBilling;
  quoteNumbers: QuoteNumbers;
  /** Largest audience whose licenses a quote looks up live (above it: `cached` or `unavailable`). */
  liveLicenseLimit: number;
  /**
   * The outbound-target policy (decision 027): destination hosts are judged when configured, and every
   * destination connection resolves through it at connect time.
   */
  policy: OutboundPolicy;
  /** The file-match run behind a matched segment, and the audience wrapping a match (file-match area). */
  matchedRun: (orgId: string, segmentId: string) => Promise<MatchedRun | null>;
  /** The file of the release the warehouse reads now (its rendered rows are sidecars of it). */
  releaseFile: () => Promise<string>;
  /** Templates and formats whose rows each release keeps rendered (EXPORT_RENDERED_ROWS). */
  renderedRows: readonly RenderedRowsSetting[];
  log?: { warn(obj: object, msg: string): void };
}

export function createDeliveriesModule(deps: DeliveriesDeps) {
  const { db, clock } = deps;
  const objects = new ObjectStore(deps.dataDir);
  const registry = createDestinationRegistry({ store: objects });
  const lookup = outboundLookup(deps.policy);
  const net = () => ({ lookup });
  // Download URLs are signed with the object-URL keys (rolled with an overlap, like upload URLs).
  const urlKeys = deps.keys.signing(OBJECT_URL_SECRET);
  const getSigner = async (): Promise<UrlSigner> =>
    createUrlSigner({ secrets: await urlKeys.keys(), publicUrl: deps.publicUrl, maxLifetimeSeconds: OBJECT_URL_MAX_SECONDS });
  const destinations = createDestinationService({ db, clock, keys: deps.keys, registry, net, policy: deps.policy });
  const requests = createRequestResolver({
    db,
    clock,
    segments: deps.segments,
    catalog: deps.catalog,
    warehouse: deps.warehouse,
    statementTimeoutMs: deps.statementTimeoutMs,
    destinations,
    matchedRun: deps.matchedRun,
  });
  const pricing = deliveryPricing({
    db,
    clock,
    billing: deps.billing,
    quoteNumbers: deps.quoteNumbers,
    liveLicenseLimit: deps.liveLicenseLimit,
    identities: (r) => requests.identities(r),
  });
  const deliveries = createDeliveryService({
    db,
    queue: deps.queue,
    clock,
    segments: deps.segments,
    requests,
    billing: deps.billing,
    pricing,
    validateWebhookUrl: (url) => deps.events.validateWebhookUrl(url),
    signer: getSigner,
  });
  const renderedRows = createRenderedRows({
    warehouse: deps.warehouse,
    releaseFile: deps.releaseFile,
    catalog: deps.catalog,
    settings: deps.renderedRows,
    log: deps.log,
  });
  const sourceDeleted = deletedSourceCheck(db, deps.segments);
  const exportJob = createExportJob({
    db,
    clock,
    sourceDeleted,
    dataDir: deps.dataDir,
    requests,
    warehouse: deps.warehouse,
    registry,
    destinations,
    net,
    billing: deps.billing,
    events: deps.events,
    renderedRows: () => renderedRows.lookup(),
    currentRelease: () => deps.segments.requireRelease(),
    personIds: async (orgId) => {
      const org = await deps.organizations.findOrganization(orgId);
      if (!org) throw new Error(`organization ${orgId} not found`);
      return { orgClientCode: org.client_code, secret: await deps.keys.secret(PERSON_ID_SECRET) };
    },
    log: deps.log,
  });
  /** The audience that wraps a match segment (spec 4.5 forwards). */
  async function audienceOfMatch(viewer: { orgId: string; userId: string }, matchId: string): Promise<string> {
    const segment = await deps.segments.findVisibleSegment(viewer, matchId);
    if (segment.subtype !== 'matched') throw SegmentErrors.notFound();
    const run = await deps.matchedRun(viewer.orgId, segment.id);
    if (!run?.audienceId) throw SegmentErrors.notFound();
    return run.audienceId;
  }
  const rows = createRowReader({ db, objects });
  return {
    deliveries,
    destinations,
    /** The rows of a completed CSV download delivery (integration runs push them to a provider). */
    rows,
    /**
     * What integration activation and export runs need of deliveries: the audience checked as visible, an
     * uncompressed CSV download of the given fields (unbilled when a partner bills the run), its state,
     * and its rows to push to the provider.
     */
    activation: {
      check: async (viewer: Viewer, audienceId: string): Promise<void> =>
        void (await deps.segments.findVisibleAudience(viewer, audienceId)),
      create: async (viewer: Viewer, audienceId: string, fields: string[], options: { unbilled: boolean }): Promise<string> =>
        (
          await deliveries.create(
            viewer,
            audienceId,
            {
              destination: 'download',
              field_list: fields,
              output_format: 'csv',
              output_compression: 'none',
            },
            options,
          )
        ).delivery.delivery_id,
      get: (viewer: Viewer, audienceId: string, deliveryId: string) => deliveries.get(viewer, audienceId, deliveryId),
      rows,
    },
    operations: [
      ...deliveryOperations({
        deliveries,
        download: createDownloadHandler({ db, clock, objects, signer: getSigner, sourceDeleted }),
        audienceOfMatch,
      }),
      ...destinationOperations({ destinations }),
    ],
    jobDefinitions: () => [exportJob.definition],
    /** Renders the configured templates' rows for the current release (after start, in the background). */
    warmRenderedRows: (o?: { signal?: AbortSignal }) => renderedRows.warm(o),
  };
}

export type DeliveriesModule = ReturnType<typeof createDeliveriesModule>;
export { DELIVERY_EXPORT_JOB };
export { exactQuoteNumbers, type DeliveryBilling, type QuoteNumbers, type QuoteFigures } from './pricing.ts';
export type { MatchedRun } from './request.ts';
