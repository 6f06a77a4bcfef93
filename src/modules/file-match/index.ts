/**
 * File matching (spec 4.5): signed uploads, analysis, mappings, the resolution job, and the `matched`
 * segment subtype it registers into the segments area. The composition root calls this once.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { MatchWarehouse } from '../../identity/matcher/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { OBJECT_URL_MAX_SECONDS, OBJECT_URL_SECRET, PERSON_ID_SECRET, type ServerKeys } from '../../db/server-secrets.ts';
import { createUrlSigner, type UrlSigner } from '../../objects/signed-urls.ts';
import { ObjectStore } from '../../objects/store.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { fileMatchStore } from './store.ts';
import { createMappingService } from './mappings.ts';
import { fileMatchOperations, type PartnerRuns } from './operations.ts';
import { createResolver, personIdDecoder, type ResolverDeps } from './resolve.ts';
import { createFileMatchService } from './service.ts';
import { createMatchedSubtype } from './subtype.ts';
import { createUploadHandler } from './upload.ts';

export function createFileMatchModule(deps: {
  config: Config;
  db: Kysely<DB>;
  keys: Pick<ServerKeys, 'secret' | 'signing'>;
  queue: JobQueue;
  clock: Clock;
  events: Pick<EventService, 'emit' | 'validateWebhookUrl'>;
  segments: SegmentsApi;
  warehouse: MatchWarehouse;
  matchIndex: { current(): Promise<{ indexPath: string }> };
  organizations: { findOrganization(orgId: string): Promise<{ client_code: string } | undefined> };
  /** X-Integration-Execution-Key runs (the integrations area). */
  partnerRuns?: PartnerRuns;
  log?: ResolverDeps['log'];
}) {
  const { config, db, clock, segments } = deps;
  const objects = new ObjectStore(config.dataDir);
  const urlKeys = deps.keys.signing(OBJECT_URL_SECRET);
  /** A signer over the keys as last read; `reload` reads them again (a URL signed by a process that rolled them). */
  const getSigner = async (reload = false): Promise<UrlSigner> =>
    createUrlSigner({
      secrets: await (reload ? urlKeys.reload() : urlKeys.keys()),
      publicUrl: config.publicUrl,
      maxLifetimeSeconds: OBJECT_URL_MAX_SECONDS,
    });
  const files = createFileMatchService({
    db,
    clock,
    segments,
    signer: getSigner,
    validateWebhookUrl: (url) => deps.events.validateWebhookUrl(url),
  });
  const mappings = createMappingService({ db, clock, queue: deps.queue, objects, files, segments, uploadLimits: config.uploads });
  const upload = createUploadHandler({
    db,
    queue: deps.queue,
    clock,
    objects,
    signer: getSigner,
    segmentExists: async (orgId, id) => !!(await segments.findSegment(db, orgId, id)),
  });
  /** Test hooks (crash injection, small match batches); empty in production. */
  const hooks: { beforeSwap?: ResolverDeps['beforeSwap'] } = {};
  const resolver = createResolver({
    db,
    clock,
    objects,
    warehouse: deps.warehouse,
    index: deps.matchIndex,
    events: deps.events,
    segments,
    log: deps.log,
    uploadLimits: config.uploads,
    concurrency: config.jobs.fileMatchConcurrency,
    personIdDecoder: personIdDecoder({
      secret: () => deps.keys.secret(PERSON_ID_SECRET),
      clientCode: async (orgId) => (await deps.organizations.findOrganization(orgId))?.client_code,
    }),
    beforeSwap: (d) => hooks.beforeSwap?.(d),
  });
  segments.registerSubtype(createMatchedSubtype(files));
  return {
    files,
    mappings,
    upload,
    objects,
    hooks,
    /** What a delivery needs of a completed run: its id, rows.parquet, match count and wrapping audience. */
    async deliverySource(orgId: string, segmentId: string) {
      const fm = await fileMatchStore.find(db, orgId, segmentId);
      if (!fm) return null;
      return {
        runId: `${fm.segment_id}.v${fm.upload_version}`,
        rowsPath: fm.results_path,
        matchCount: Number(fm.rows_matched ?? 0),
        audienceId: fm.audience_id,
      };
    },
    operations: fileMatchOperations({ files, mappings, upload, partnerRuns: deps.partnerRuns }),
    jobDefinitions: () => [resolver.definition],
  };
}

export type FileMatchModule = ReturnType<typeof createFileMatchModule>;
export type { PartnerRuns } from './operations.ts';
