import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { serveProcess } from '../test/helpers/serve-process.ts';

/**
 * Authenticated trivial GET (GET /v1/auth/session: bearer check, scope, rate limit, request id,
 * metrics, response schema) against a bare Fastify hello-world, same load tool, same run.
 * The service runs on its embedded default (PGlite) in its own process; the load tool in this one.
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function load(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers }); // warm-up
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  return {
    requests_per_second: Math.round(r.requests.average),
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    errors: r.errors,
  };
}

const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-http-'));
const service = await serveProcess(['src/main.ts', 'serve'], {
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  GRAPH_PERSONS: '0',
  DATABASE_URL: '',
  // The demo organization is on pilot; lift its limit so the benchmark measures serving, not throttling.
  RATE_LIMITS: JSON.stringify({ pilot: 100_000_000 }),
});
const rawKey = service.output().match(/ads_live_[A-Za-z0-9]{40}/)![0];
const token = (
  (await (
    await fetch(`${service.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: rawKey }),
    })
  ).json()) as {
    access_token: string;
  }
).access_token;

const bare = await serveProcess(['bench/bare-fastify.ts'], {});
const bareResult = await load(`${bare.url}/hello`);
const authResult = await load(`${service.url}/v1/auth/session`, { authorization: `Bearer ${token}` });
await bare.stop();
await service.stop();

console.log(
  JSON.stringify(
    {
      benchmark: 'http-authenticated-get',
      connections: CONNECTIONS,
      duration_seconds: DURATION,
      bare_fastify: bareResult,
      authenticated_get: authResult,
      throughput_ratio: Number((authResult.requests_per_second / bareResult.requests_per_second).toFixed(3)),
    },
    null,
    2,
  ),
);
