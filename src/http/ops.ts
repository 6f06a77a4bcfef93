import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from './metrics.ts';

export type ReadinessCheck = () => Promise<void>;

const HealthResponse = Type.Object({ status: Type.String() });
const ReadyResponse = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Type.Record(Type.String(), Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) })),
});

/** Liveness, readiness and Prometheus metrics: infrastructure routes outside the API (not in the OpenAPI document; see the README). */
export function opsRoutes(deps: {
  checks: Record<string, ReadinessCheck>;
  metrics: Metrics;
  isShuttingDown: () => boolean;
}): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      {
        config: { access: 'public' },
        schema: { hide: true, tags: ['Operations'], summary: 'Liveness', security: [], response: { 200: HealthResponse } },
      },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        config: { access: 'public' },
        schema: {
          hide: true,
          tags: ['Operations'],
          summary: 'Readiness: the control plane and the graph answer',
          security: [],
          response: { 200: ReadyResponse, 503: ReadyResponse },
        },
      },
      async (_request, reply) => {
        const checks: Record<string, { ok: boolean; error?: string }> = {};
        await Promise.all(
          Object.entries(deps.checks).map(async ([name, check]) => {
            try {
              await check();
              checks[name] = { ok: true };
            } catch (error) {
              checks[name] = { ok: false, error: (error as Error).message.slice(0, 200) };
            }
          }),
        );
        if (deps.isShuttingDown()) checks.shutdown = { ok: false, error: 'shutting down' };
        const ready = Object.values(checks).every((c) => c.ok);
        reply.status(ready ? 200 : 503);
        return { status: ready ? ('ready' as const) : ('not_ready' as const), checks };
      },
    );

    app.get(
      '/metrics',
      { config: { access: 'public' }, schema: { hide: true, tags: ['Operations'], summary: 'Prometheus metrics', security: [] } },
      async (_request, reply) => {
        reply.type(deps.metrics.registry.contentType);
        return deps.metrics.registry.metrics();
      },
    );
  };
}
