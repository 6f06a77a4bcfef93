import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { sql } from 'kysely';
import type { Config } from './config/index.ts';
import type { Database } from './db/database.ts';
import { WarehouseUnavailableError } from './graph/index.ts';
import type { JobQueue } from './jobs/queue.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { registerAuth } from './http/auth.ts';
import { registerBodyParsing } from './http/body.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { createMetrics, registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { opsRoutes, type ReadinessCheck } from './http/ops.ts';
import { redactingLogger } from './http/log-redaction.ts';
import { clientErrorHandler, frameworkErrors, registerInputGuard } from './http/input-guard.ts';
import { registerExchangeRateLimit, registerRateLimit } from './http/rate-limit/plugin.ts';
import { genRequestId, registerRequestContext } from './http/request-context.ts';
import { registerOperations } from './http/rest.ts';
import { registerMcp } from './http/mcp/index.ts';
import { registerA2A } from './http/a2a/index.ts';
import { registerValidation } from './http/validation.ts';
import { scheduleExpirySweep } from './modules/segments/index.ts';
import { COLLECTION_REFRESH_CRON, COLLECTION_REFRESH_JOB } from './modules/integrations/index.ts';
import { createServices, type Services } from './wiring.ts';
import { registerOAuth } from './http/authorization-server/index.ts';
import { registerBillingPortal } from './http/billing-portal-routes.ts';
import { scheduleBillingJobs } from './modules/billing/index.ts';
import { oauthChallenge } from './http/authorization-server/challenge.ts';
import { oauthOpenApiPaths } from './http/authorization-server/openapi.ts';
import {
  OAUTH_ROUTES,
  OAUTH_SWEEP_CRON,
  OAUTH_SWEEP_JOB,
  resourceMetadataUrl,
  type MetadataTransport,
  type SecretCodec,
} from './modules/oauth/index.ts';

/** Reported to MCP and A2A clients. */
const SERVICE_VERSION = '1.0.0';
import type { Resolver } from './lib/outbound/index.ts';

export interface BuildDeps {
  database: Database;
  queue: JobQueue;
  clock?: Clock;
  /** Pino logger options, or false for silence (tests). */
  logger?: boolean | object;
  /** Transport of OAuth client metadata document fetches (the outbound-target policy hook). */
  metadataTransport?: MetadataTransport;
  /** How OAuth secrets are sealed at rest (the master-key hook). */
  oauthSecretCodec?: SecretCodec;
  /** The outbound-target policy's resolver (tests inject one to prove refusals without DNS). */
  outboundResolver?: Resolver;
  /** Told when this process's warehouse switches to a newer data release (runtime.ts renders its rows). */
  onReleaseSwitch?: () => void;
}

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  /** Marks the app as draining: /readyz answers 503 so load balancers stop sending traffic. */
  beginShutdown(): void;
  /** The checks /readyz runs; a running service adds its own (e.g. the match index it builds). */
  readiness: Record<string, ReadinessCheck>;
  /** Every route registered, of every adapter (REST, OAuth, MCP, A2A, pages): what the hostile-input tests walk. */
  routes: readonly RouteOptions[];
}

/** Builds the HTTP app (no listen). Tests call this; `ads serve` calls it and listens. */
export async function build(config: Config, deps: BuildDeps): Promise<BuiltApp> {
  const clock = deps.clock ?? systemClock;
  const app = Fastify({
    // No credential (a signed URL's signature, a bearer, an API key) reaches a log line.
    logger: redactingLogger(deps.logger ?? { level: config.logLevel }),
    genReqId: genRequestId,
    bodyLimit: 5 * 1024 * 1024,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { allErrors: true } },
    // Fastify's and Node's own refusals answer in the envelope too (src/http/input-guard.ts).
    frameworkErrors,
    clientErrorHandler,
  });
  const services = await createServices({
    config,
    database: deps.database,
    queue: deps.queue,
    clock,
    log: app.log,
    metadataTransport: deps.metadataTransport,
    oauthSecretCodec: deps.oauthSecretCodec,
    outboundResolver: deps.outboundResolver,
    onReleaseSwitch: deps.onReleaseSwitch,
  });

  let shuttingDown = false;
  const metrics = createMetrics();
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => void routes.push(route));

  registerValidation(app);
  registerErrorHandling(app);
  registerBodyParsing(app);
  registerInputGuard(app);
  registerRequestContext(app, () => shuttingDown);
  registerMetrics(app, metrics);
  registerAuth(app, (authorization) => services.auth.authenticate(authorization), {
    challenge: oauthChallenge(config.oauth.resources.api),
  });
  registerRateLimit(app, { limiter: services.rateLimiter, tierOf: services.tierOf, limits: config.rateLimits });
  registerExchangeRateLimit(app, {
    limiter: services.rateLimiter,
    perKeyPerMinute: config.limits.exchangePerKeyPerMinute,
    perAddressPerMinute: config.limits.exchangePerAddressPerMinute,
  });
  await registerOpenApi(app, {
    publicUrl: config.publicUrl,
    operations: services.operations,
    extraPaths: oauthOpenApiPaths(config.oauth.resources),
  });

  const readiness: Record<string, ReadinessCheck> = {
    control_plane: async () => {
      await sql`select 1`.execute(deps.database.db);
    },
    // Ready only when the graph answers: a process without a usable release cannot serve discovery.
    graph: async () => {
      await services.catalog.getCatalog().catch((err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        if (cause instanceof WarehouseUnavailableError && cause.kind === 'no_release')
          throw new Error('no data release yet (the graph is loading)');
        throw new Error('the field catalog cannot be read from the current release');
      });
    },
  };
  await app.register(
    opsRoutes({
      metrics,
      isShuttingDown: () => shuttingDown,
      checks: readiness,
    }),
  );
  registerOperations(app, services.operations, { idempotency: services.idempotency });
  await registerOAuth(app, services.oauth, { production: config.production });
  await registerBillingPortal(app, services.billingModule.portal);
  const { resources } = config.oauth;
  const bound = (resource: string) => (authorization: string | undefined) =>
    services.auth.authenticate(authorization, (token) => services.oauth.verifyAccessToken(token, resource));
  registerMcp(app, {
    resource: resources.mcp,
    operations: services.operations,
    authenticate: bound(resources.mcp),
    origins: [config.publicUrl],
    version: SERVICE_VERSION,
    idempotency: services.idempotency,
  });
  registerA2A(app, {
    operations: services.operations,
    tasks: services.agentTasks,
    authenticate: bound(resources.a2a),
    origins: [config.publicUrl],
    idempotency: services.idempotency,
    urls: {
      resource: resources.a2a,
      issuer: config.oauth.issuer,
      version: SERVICE_VERSION,
      metadataUrl: resourceMetadataUrl(resources.a2a),
      authorizationUrl: `${config.oauth.issuer}${OAUTH_ROUTES.authorization}`,
      tokenUrl: `${config.oauth.issuer}${OAUTH_ROUTES.token}`,
      deviceAuthorizationUrl: `${config.oauth.issuer}${OAUTH_ROUTES.device_authorization}`,
    },
  });
  app.addHook('onClose', async () => {
    await services.warehouse.close();
    services.oauth.mailer.close();
  });
  // The TTL sweep runs on a pg-boss schedule (an idempotent upsert, so every process may register it).
  app.addHook('onReady', async () => {
    try {
      await scheduleExpirySweep(deps.queue);
      await scheduleBillingJobs(deps.queue);
      await deps.queue.ensureQueue(OAUTH_SWEEP_JOB, { retryLimit: 2, retryDelay: 60 });
      await deps.queue.boss.schedule(OAUTH_SWEEP_JOB, OAUTH_SWEEP_CRON, {}, { tz: 'UTC' });
      await deps.queue.ensureQueue(COLLECTION_REFRESH_JOB, { retryLimit: 2, retryDelay: 60 });
      await deps.queue.boss.schedule(COLLECTION_REFRESH_JOB, COLLECTION_REFRESH_CRON, {}, { tz: 'UTC' });
    } catch (error) {
      app.log.warn({ err: error }, 'could not register the expiry sweep schedule; it is retried at the next start');
    }
  });

  return {
    app,
    services,
    readiness,
    routes,
    beginShutdown() {
      shuttingDown = true;
    },
  };
}
