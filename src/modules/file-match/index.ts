/**
 * Wires file matching (spec 4.5): object store, URL signer, services, the resolution job and the
 * port the segments module calls for matched create / refresh. services.ts calls this once.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { IdempotencyService } from '../../http/idempotency/service.ts';
import type { MatchWarehouse } from '../../identity/matcher/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { serverSecret } from '../../lib/server-secrets.ts';
import { createUrlSigner, type UrlSigner } from '../../objects/signed-urls.ts';
import { ObjectStore } from '../../objects/store.ts';
import { PERSON_ID_SECRET } from '../matching/index.ts';
import type { EventService } from '../webhooks/events.ts';
import type { ReleaseRef } from '../segments/ports.ts';
import { createMappingService } from './mappings.ts';
import { createResolver, personIdDecoder, type ResolverDeps } from './resolve.ts';
import { createFileMatchService } from './service.ts';
import { createUploadHandler } from './upload.ts';

export function createFileMatchModule(deps: {
  config: Config;
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  events: Pick<EventService, 'emit' | 'validateWebhookUrl'>;
  warehouse: MatchWarehouse;
  matchIndex: { current(): Promise<{ indexPath: string }> };
  idempotency: IdempotencyService;
  organizations: { findOrganization(orgId: string): Promise<{ client_code: string } | undefined> };
  /** The current data release (the pointer file), recorded on new segments. */
  currentRelease: () => ReleaseRef | null;
}) {
  const { config, db, clock } = deps;
  const objects = new ObjectStore(config.dataDir);
  let signer: Promise<UrlSigner> | null = null;
  const getSigner = () => {
    signer ??= serverSecret(db, 'object_url_hmac').then((secret) => createUrlSigner({ secret, publicUrl: config.publicUrl }));
    signer.catch(() => { signer = null; });
    return signer;
  };
  const files = createFileMatchService({
    db, clock, signer: getSigner, idempotency: deps.idempotency,
    currentRelease: deps.currentRelease,
    validateWebhookUrl: (url) => deps.events.validateWebhookUrl(url),
  });
  const mappings = createMappingService({ db, clock, queue: deps.queue, objects, files });
  const upload = createUploadHandler({ db, queue: deps.queue, clock, objects, signer: getSigner });
  /** Test hooks (crash injection, small match batches); empty in production. */
  const hooks: { beforeSwap?: ResolverDeps['beforeSwap'] } = {};
  const resolver = createResolver({
    db, clock, objects, warehouse: deps.warehouse, index: deps.matchIndex, events: deps.events,
    personIdDecoder: personIdDecoder({
      secret: () => serverSecret(db, PERSON_ID_SECRET),
      clientCode: async (orgId) => (await deps.organizations.findOrganization(orgId))?.client_code,
    }),
    beforeSwap: (d) => hooks.beforeSwap?.(d),
  });
  return {
    files, mappings, upload, objects, hooks,
    jobDefinitions: () => [resolver.definition],
    matchedPort: {
      create: (viewer: { orgId: string; userId: string }, input: Record<string, unknown>) => files.create(viewer, input as never),
      refresh: (viewer: { orgId: string; userId: string }, row: Parameters<typeof files.refresh>[1], input: Record<string, unknown>) => files.refresh(viewer, row, input),
    },
  };
}
