import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { JobQueue } from './jobs/queue.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { registerAuth } from './http/auth.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { createMetrics, registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRateLimit } from './http/rate-limit/plugin.ts';
import { genRequestId, registerRequestContext } from './http/request-context.ts';
import { registerValidation } from './http/validation.ts';
import { apiKeyRoutes } from './modules/api-keys/routes.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';
import { segmentRoutes } from './modules/segments/routes.ts';
import { audienceRoutes } from './modules/audiences/routes.ts';
import { campaignRoutes } from './modules/campaigns/routes.ts';
import { scheduleExpirySweep } from './modules/lifecycle/jobs.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { dataReleaseRoutes } from './modules/data-release/routes.ts';
import { discoveryRoutes } from './modules/discovery/routes.ts';
import { matchingRoutes } from './modules/matching/routes.ts';
import { fileMatchRoutes } from './modules/file-match/routes.ts';
import { WarehouseUnavailableError } from './graph/errors.ts';
import { opsRoutes } from './modules/ops/routes.ts';
import { createServices, type Services } from './services.ts';

export interface BuildDeps {
  database: Database;
  queue: JobQueue;
  clock?: Clock;
  /** Pino logger options, or false for silence (tests). */
  logger?: boolean | object;
}

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  /** Marks the app as draining: /readyz answers 503 so load balancers stop sending traffic. */
  beginShutdown(): void;
}

/** Builds the HTTP app (no listen). Tests call this; `ads serve` calls it and listens. */
export async function build(config: Config, deps: BuildDeps): Promise<BuiltApp> {
  const clock = deps.clock ?? systemClock;
  const services = await createServices({ config, database: deps.database, queue: deps.queue, clock });
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    genReqId: genRequestId,
    bodyLimit: 5 * 1024 * 1024,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { allErrors: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  let shuttingDown = false;
  const metrics = createMetrics();

  registerValidation(app);
  registerErrorHandling(app);
  registerRequestContext(app, () => shuttingDown);
  registerMetrics(app, metrics);
  registerAuth(app, services.auth);
  registerRateLimit(app, {
    limiter: services.rateLimiter,
    tierOf: services.tierOf,
    limits: config.rateLimits,
  });
  await registerOpenApi(app, { publicUrl: config.publicUrl });

  await app.register(
    opsRoutes({
      metrics,
      isShuttingDown: () => shuttingDown,
      checks: {
        control_plane: async () => {
          await sql`select 1`.execute(deps.database.db);
        },
        // The query engine answers; a missing release is not "not ready" (discovery answers 503 for it).
        warehouse: async () => {
          await services.warehouse.query('SELECT 1').catch((err: unknown) => {
            if (!(err instanceof WarehouseUnavailableError && err.kind === 'no_release')) throw err;
          });
        },
      },
    }),
  );
  await app.register(authRoutes({ auth: services.auth }));
  await app.register(apiKeyRoutes({ apiKeys: services.apiKeys }));
  await app.register(catalogRoutes({ catalog: services.catalog }));
  await app.register(dataReleaseRoutes({ dataRelease: services.dataRelease }));
  await app.register(discoveryRoutes({ discovery: services.discovery, fields: services.catalog.fields }));
  app.addHook('onClose', async () => {
    await services.warehouse.close();
  });
  await app.register(webhookRoutes({ webhooks: services.webhooks }));
  const sm = services.segmentsModule;
  await app.register(segmentRoutes({ segments: sm.segments, operations: sm.segmentOperations }));
  await app.register(audienceRoutes({ audiences: sm.audiences, operations: sm.audienceOperations }));
  await app.register(campaignRoutes({ campaigns: sm.campaigns }));
  await app.register(matchingRoutes({ matching: services.matching }));
  await app.register(fileMatchRoutes({ files: services.fileMatch.files, mappings: services.fileMatch.mappings, upload: services.fileMatch.upload }));
  // The TTL sweep runs on a pg-boss schedule (an idempotent upsert, so every process may register it).
  app.addHook('onReady', async () => {
    try {
      await scheduleExpirySweep(deps.queue);
    } catch (error) {
      app.log.warn({ err: error }, 'could not register the expiry sweep schedule; it is retried at the next start');
    }
  });

  return {
    app,
    services,
    beginShutdown() {
      shuttingDown = true;
    },
  };
}
