import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Clock } from './lib/clock.ts';
import { serverSecret } from './lib/server-secrets.ts';
import { createIdempotencyService } from './http/idempotency/service.ts';
import { createIdempotencyStore } from './http/idempotency/store.ts';
import { createRateLimiter } from './http/rate-limit/limiter.ts';
import { createRateLimitStore } from './http/rate-limit/store.ts';
import { createApiKeyService } from './modules/api-keys/service.ts';
import { createApiKeyStore } from './modules/api-keys/store.ts';
import { createAuthService } from './modules/auth/service.ts';
import { createOrganizationService } from './modules/organizations/service.ts';
import { createOrganizationStore } from './modules/organizations/store.ts';
import { createDiscoveryModule } from './modules/discovery/index.ts';
import { cachedTierLookup } from './http/rate-limit/plugin.ts';
import type { Tier } from './config.ts';
import { createWebhookModule } from './modules/webhooks/index.ts';
import { createSegmentsModule, webhookEventPorts } from './modules/segments/module.ts';
import { warehouseGraphPorts } from './modules/segments/graph-ports.ts';
import { readCurrentRelease } from './graph/releases.ts';
import { createMatchingModule } from './modules/matching/index.ts';
import { createFileMatchModule } from './modules/file-match/index.ts';

export interface ServiceDeps {
  config: Config;
  database: Database;
  queue: JobQueue;
  clock: Clock;
}

/**
 * Wires every domain service from its store and the narrow dependencies it needs. Protocol-free:
 * REST routes, the CLI, MCP tools and A2A skills all call these.
 */
export async function createServices(deps: ServiceDeps) {
  const { database, clock } = deps;
  const db = database.db;
  const tokenSecret = await serverSecret(db, 'access_token_hmac');

  const organizations = createOrganizationService({ store: createOrganizationStore(db), clock });
  const apiKeys = createApiKeyService({ store: createApiKeyStore(db), organizations, clock });
  const auth = createAuthService({ apiKeys, organizations, clock, tokenSecret });
  const rateLimiter = createRateLimiter({ store: createRateLimitStore(db), clock });
  const idempotency = createIdempotencyService({ store: createIdempotencyStore(db), clock });

  // events.emit(trx, ...) for emitters; webhooks for the routes; webhookDispatcher for the worker.
  const { events, webhooks, webhookDispatcher } = createWebhookModule({ config: deps.config, database, queue: deps.queue, clock });

  // Tier lookups are cached briefly (they change only with a contract change); shared by the rate
  // limit and the compute budget.
  const tierOf = cachedTierLookup(async (orgId) => ((await organizations.findOrganization(orgId))?.tier as Tier) ?? null, clock);

  // Data plane: one warehouse client per process (closed by app.ts on close), catalog, data release, discovery.
  const dataPlane = await createDiscoveryModule({
    config: deps.config, database, clock,
    tierOf: async (orgId) => tierOf(orgId),
  });

  // Segments, audiences, campaigns (issue #4): count through the same warehouse; discovery resolves
  // segment_id / audience_id / segment_ids inputs through this module.
  const segmentsModule = createSegmentsModule({
    db, queue: deps.queue, clock, events: webhookEventPorts(events),
    graph: warehouseGraphPorts({
      warehouse: dataPlane.warehouse,
      catalog: async () => (await dataPlane.catalog.getCatalog()).fields,
      currentRelease: () => readCurrentRelease(deps.config.dataDir),
    }),
  });
  dataPlane.discovery.useSegmentResolver(segmentsModule.segmentInputResolver);

  // Micro-batch matching and the usage ledger (issue #5): over the same warehouse and catalog.
  const matchingModule = createMatchingModule({
    config: deps.config, db, clock, warehouse: dataPlane.warehouse, idempotency, catalog: dataPlane.catalog, organizations,
  });

  // File matching (issue #6): uploads, analysis, resolution jobs; plugs matched create/refresh into segments.
  const fileMatch = createFileMatchModule({
    config: deps.config, db, queue: deps.queue, clock, events, warehouse: dataPlane.warehouse, matchIndex: matchingModule.matchIndex,
    idempotency, organizations, currentRelease: () => readCurrentRelease(deps.config.dataDir),
  });
  segmentsModule.useMatched(fileMatch.matchedPort);

  return {
    ...dataPlane, fileMatch, tierOf, organizations, apiKeys, auth, rateLimiter, idempotency, events, webhooks, webhookDispatcher, segmentsModule,
    matching: matchingModule.matching, billing: matchingModule.billing, matchIndex: matchingModule.matchIndex,
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
