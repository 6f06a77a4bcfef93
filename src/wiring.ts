/**
 * The composition root: every area's module, built once from the stores and the narrow dependencies it
 * declares, in dependency order (no area is patched after construction). Protocol-free: REST, the CLI,
 * MCP tools and A2A skills all run the operations and services built here.
 */
import type { Config } from './config/index.ts';
import type { Database } from './db/database.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { JobDefinition } from './jobs/worker.ts';
import type { Clock } from './lib/clock.ts';
import type { Operation } from './core/operation.ts';
import { readCurrentRelease, releaseFilePath } from './graph/index.ts';
import { openWarehouse } from './graph/index.ts';
import { createIdempotencyService } from './http/idempotency/service.ts';
import { createIdempotencyStore } from './http/idempotency/store.ts';
import { createRateLimiter } from './http/rate-limit/limiter.ts';
import { createRateLimitStore } from './http/rate-limit/store.ts';
import { cachedTierLookup } from './http/rate-limit/plugin.ts';
import { ACCESS_TOKEN_SECRET, createServerKeys } from './db/server-secrets.ts';
import { createAuthModule } from './modules/auth/index.ts';
import { createAgentTasksModule } from './modules/agent-tasks/index.ts';
import { createBillingModule } from './modules/billing/index.ts';
import { createDeliveriesModule } from './modules/deliveries/index.ts';
import { createCatalogModule } from './modules/catalog/index.ts';
import { createDiscoveryModule } from './modules/discovery/index.ts';
import { createFileMatchModule } from './modules/file-match/index.ts';
import { createIntegrationsModule } from './modules/integrations/index.ts';
import { createMatchingModule } from './modules/matching/index.ts';
import { createGraphFigures, createPrivacy } from './modules/privacy/index.ts';
import { createModelSegmentsModule, privacyProtect } from './modules/model-segments/index.ts';
import { createOrganizationsModule } from './modules/organizations/index.ts';
import { createSegmentsModule, warehouseGraphPorts } from './modules/segments/index.ts';
import { createWebhookModule } from './modules/webhooks/index.ts';
import { policyFetch, type Resolver } from './lib/outbound/index.ts';
import { createOAuthModule, type MetadataTransport, type SecretCodec } from './modules/oauth/index.ts';

export interface WiringDeps {
  config: Config;
  database: Database;
  queue: JobQueue;
  clock: Clock;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Transport of OAuth client metadata document fetches (default: a fetch through the outbound-target policy). */
  metadataTransport?: MetadataTransport;
  /** How OAuth secrets are sealed at rest (default: wrapped under the master key, like every server key). */
  oauthSecretCodec?: SecretCodec;
  /** The outbound-target policy's resolver (tests inject one; default: the system resolver). */
  outboundResolver?: Resolver;
  /** Told when the warehouse switches to a newer data release (not on the first attach). */
  onReleaseSwitch?: (() => void) | undefined;
}

export async function createServices(deps: WiringDeps) {
  const { config, database, queue, clock } = deps;
  const db = database.db;
  const readRelease = () => readCurrentRelease(config.dataDir);
  // Every key the database holds is wrapped under the master key; values from before that are sealed now.
  const keys = createServerKeys(database, clock);
  await keys.sealStored();

  const { organizations } = createOrganizationsModule({ db, clock, passwordScryptLogN: config.oauth.passwordScryptLogN });
  const oauth = await createOAuthModule({
    db,
    organizations,
    clock,
    settings: config.oauth,
    secretCodec: deps.oauthSecretCodec ?? keys.codec,
    log: deps.log,
    // Client metadata documents are fetched through the outbound-target policy, like every outbound connection.
    metadataTransport:
      deps.metadataTransport ?? policyFetch({ allowPrivate: config.outbound.allowPrivateTargets, resolve: deps.outboundResolver }),
  });
  const authModule = createAuthModule({
    db,
    organizations,
    clock,
    tokenKeys: keys.signing(ACCESS_TOKEN_SECRET),
    oauthBearer: oauth.verifyApiToken,
  });
  const rateLimiter = createRateLimiter({ store: createRateLimitStore(db), clock });
  const idempotency = createIdempotencyService({ store: createIdempotencyStore(db), clock });
  // Tier lookups are cached briefly (they change only with a contract change): rate limit and compute budget.
  const tierOf = cachedTierLookup((orgId) => organizations.tierOf(orgId), clock);

  const webhookModule = createWebhookModule({ config, database, queue, clock, keys, log: deps.log, resolver: deps.outboundResolver });
  const { events } = webhookModule;

  // Data plane: one warehouse client per process (closed by app.ts on close).
  const warehouse = await openWarehouse({
    dataDir: config.dataDir,
    onAttach: (release, previous) => {
      deps.log?.info(
        {
          release: `${release.major}.${release.minor}`,
          file: release.file,
          previous: previous ? `${previous.major}.${previous.minor}` : null,
        },
        previous ? 'switched to a new data release' : 'attached the current data release',
      );
      if (previous) deps.onReleaseSwitch?.();
    },
    ...(config.discovery.duckdbMemoryLimit ? { memoryLimit: config.discovery.duckdbMemoryLimit } : {}),
    ...(config.discovery.duckdbThreads ? { threads: config.discovery.duckdbThreads } : {}),
  });
  const catalogModule = createCatalogModule({ warehouse, readRelease, clock, releaseCacheSeconds: config.discovery.releaseCacheSeconds });
  const { catalog } = catalogModule;
  const billingModule = createBillingModule({
    db,
    clock,
    settings: config.billing,
    publicUrl: config.publicUrl,
    tiers: { tierOf: (orgId, conn) => organizations.tierOf(orgId, conn), setTier: (orgId, tier) => organizations.setTier(orgId, tier) },
    isOwner: async (orgId, userId) => (await organizations.findUser(orgId, userId))?.role === 'owner',
  });
  const { billing } = billingModule;

  // Every graph-derived number and lookup row shown to a customer goes through the privacy layer.
  const privacy = await createPrivacy({
    keys,
    floor: config.discovery.privacyFloor,
    lookupK: config.discovery.lookupK,
    secret: config.discovery.privacyNoiseSecret,
  });
  const graphFigures = createGraphFigures({
    privacy,
    run: (q, params) => warehouse.query(q, params, { timeoutMs: config.limits.warehouseStatementTimeoutMs }),
    catalog: async () => (await catalog.getCatalog()).fields,
    persons: async () => (await warehouse.release()).persons,
  });
  const segmentsModule = createSegmentsModule({
    db,
    queue,
    clock,
    events,
    privacy,
    graph: warehouseGraphPorts({
      warehouse,
      catalog: async () => (await catalog.getCatalog()).fields,
      currentRelease: readRelease,
      statementTimeoutMs: config.limits.warehouseStatementTimeoutMs,
      privacy,
    }),
  });
  const segments = segmentsModule.api;
  const discoveryModule = createDiscoveryModule({
    settings: config.discovery,
    database,
    clock,
    warehouse,
    catalog,
    segments,
    privacy,
    tierOf: async (orgId) => tierOf(orgId),
    statementTimeoutMs: config.limits.warehouseStatementTimeoutMs,
    ...(deps.log ? { log: deps.log } : {}),
  });
  const matchingModule = createMatchingModule({ config, db, keys, clock, warehouse, billing, segments, catalog, organizations });
  const integrations = createIntegrationsModule({
    db,
    queue,
    clock,
    keys,
    events,
    settings: config.integrations,
    log: deps.log,
    dataDir: config.dataDir,
    policy: { allowPrivate: config.outbound.allowPrivateTargets, resolve: deps.outboundResolver },
    matching: matchingModule.matching,
    billing,
    termsOf: (orgId) => billingModule.accounts.termsOf(orgId),
    findUser: (orgId, userId) => organizations.findUser(orgId, userId),
    collections: { privacy, segments, warehouse, dataDir: config.dataDir, clientStanding: (clientId) => oauth.clientStanding(clientId) },
    // Activation and export runs push an audience through a delivery of it (deliveriesModule is built below).
    deliveries: {
      check: (...a) => deliveriesModule.activation.check(...a),
      create: (...a) => deliveriesModule.activation.create(...a),
      get: (...a) => deliveriesModule.activation.get(...a),
      rows: (...a) => deliveriesModule.activation.rows(...a),
    },
  });

  const fileMatch = createFileMatchModule({
    config,
    db,
    keys,
    queue,
    clock,
    events,
    segments,
    warehouse,
    matchIndex: matchingModule.matchIndex,
    organizations,
    log: deps.log,
    partnerRuns: integrations.executions,
  });
  const modelSegments = createModelSegmentsModule({
    db,
    queue,
    clock,
    dataDir: config.dataDir,
    events,
    segments,
    warehouse,
    protectNumbers: privacyProtect(privacy),
    log: deps.log,
    measureSet: (query) => graphFigures.measureQuestion(query),
  });

  const { tasks: agentTasks } = createAgentTasksModule({ db, clock });

  // Deliveries: billing's license-aware delivery API, quote numbers through the privacy layer, every
  // destination connection through the outbound-target policy (src/destinations/net.ts resolves with `lookup`).
  const deliveriesModule = createDeliveriesModule({
    db,
    keys,
    queue,
    clock,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    segments,
    releaseFile: async () => releaseFilePath(config.dataDir, await warehouse.release()),
    renderedRows: config.exports.renderedRows,
    catalog: () => catalog.getCatalog(),
    warehouse,
    statementTimeoutMs: config.limits.warehouseStatementTimeoutMs,
    organizations,
    events,
    billing,
    liveLicenseLimit: config.billing.licenseLookupMaxIdentities,
    // Figures shown before purchase are graph-derived: through the privacy layer, by member set.
    quoteNumbers: (input) => graphFigures.quoteFigures(input),
    policy: { allowPrivate: config.outbound.allowPrivateTargets, resolve: deps.outboundResolver },
    matchedRun: async (orgId, segmentId) => {
      const run = await fileMatch.deliverySource(orgId, segmentId);
      return run && { ...run, integrationRunId: await integrations.executions.runOfMatch(orgId, segmentId) };
    },
    log: deps.log,
  });

  const operations: Operation[] = [
    ...authModule.operations,
    ...oauth.operations,
    ...catalogModule.operations,
    ...discoveryModule.operations,
    ...segmentsModule.operations,
    ...matchingModule.operations,
    ...fileMatch.operations,
    ...modelSegments.operations,
    ...webhookModule.operations,
    ...billingModule.operations,
    ...deliveriesModule.operations,
    ...integrations.operations,
  ];

  /** Every job kind of the service; each module contributes its definitions. */
  const jobDefinitions = (): JobDefinition[] => [
    webhookModule.webhookDispatcher.definition,
    ...segmentsModule.jobDefinitions(),
    ...fileMatch.jobDefinitions(),
    ...modelSegments.jobDefinitions(),
    ...oauth.jobDefinitions(),
    ...billingModule.jobDefinitions(),
    ...deliveriesModule.jobDefinitions(),
    ...integrations.jobDefinitions(),
  ];

  return {
    operations,
    jobDefinitions,
    warehouse,
    tierOf,
    privacy,
    rateLimiter,
    idempotency,
    organizations,
    events,
    oauth,
    auth: authModule.auth,
    apiKeys: authModule.apiKeys,
    catalog,
    dataRelease: catalogModule.dataRelease,
    discovery: discoveryModule.discovery,
    billing,
    billingModule,
    segmentsModule,
    fileMatch,
    modelSegments,
    deliveries: deliveriesModule,
    matching: matchingModule.matching,
    matchIndex: matchingModule.matchIndex,
    webhooks: webhookModule.webhooks,
    webhookDispatcher: webhookModule.webhookDispatcher,
    agentTasks,
    integrations,
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
