import type { FastifyInstance } from 'fastify';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { privacyMetrics } from '../modules/privacy/index.ts';

/** Prometheus metrics, one registry per app instance (tests build many apps in one process). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // One histogram serves both rates and latencies: its _count series is the request counter.
  const duration = new Histogram({
    name: 'ads_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status (the _count series counts requests)',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Runs of near-identical questions flagged by the privacy layer (docs/decisions/052).
  for (const m of Object.values(privacyMetrics)) registry.registerMetric(m);
  return { registry, duration };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  // Label children are looked up once per (method, route, status) and kept: prom-client otherwise
  // hashes the label object on every observation, which shows on a hot path.
  const timers = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, not the URL, so ids do not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let timer = timers.get(key);
    if (!timer) timers.set(key, (timer = metrics.duration.labels(request.method, route, String(reply.statusCode))));
    timer.observe(reply.elapsedTime / 1000);
    done();
  });
}
