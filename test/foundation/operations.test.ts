import { testGraph } from '../segments/graph.ts';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGraph } from '../../src/graph/generate.ts';
import { readCurrentRelease } from '../../src/graph/releases.ts';
import { startService } from '../../src/runtime.ts';
import { testConfig, testApp, type TestApp } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { serveProcess } from '../helpers/serve-process.ts';
import { waitFor } from '../webhooks/helpers.ts';

describe('health, readiness and metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.app.close());

  it('answers liveness, and readiness that reflects the graph: not ready until a release can be read', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    // This app's data dir has no graph: the field catalog cannot be read, so it is not ready.
    const loading = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(loading.statusCode).toBe(503);
    expect(loading.json()).toMatchObject({ status: 'not_ready', checks: { control_plane: { ok: true }, graph: { ok: false } } });
    expect(loading.json().checks.graph.error).toMatch(/no data release/);
    const g = await testGraph();
    const withGraph = await testApp({ config: { dataDir: g.dataDir } });
    try {
      const ready = await withGraph.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: { control_plane: { ok: true }, graph: { ok: true } } });
    } finally {
      await withGraph.app.close();
    }
  });

  it('exposes Prometheus metrics with per-route counters', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(/ads_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests, turns readiness off, then refuses new connections', async () => {
    const { database } = await testStores();
    const config = testConfig({ host: '127.0.0.1', port: 0, shutdownGraceSeconds: 10 });
    let arrived: () => void;
    const handlerStarted = new Promise<void>((resolve) => (arrived = resolve));
    const service = await startService(config, {
      database,
      logger: false,
      beforeListen: (built) => {
        built.app.get('/slow', { config: { access: 'public' } }, async () => {
          arrived();
          await new Promise((r) => setTimeout(r, 800));
          return { done: true };
        });
      },
    });
    const inFlight = fetch(`${service.url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await handlerStarted; // the request is being handled when shutdown begins
    // Draining turns readiness off first (load balancers stop sending), before connections close.
    service.built!.beginShutdown();
    const readiness = await service.built!.app.inject({ method: 'GET', url: '/readyz' });
    expect(readiness.statusCode).toBe(503);
    expect(readiness.json().checks.shutdown).toEqual({ ok: false, error: 'shutting down' });
    const stopping = service.shutdown();
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await stopping;
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
  });

  it('warms the match index when asked (MATCH_WARMUP), is ready only once it is built, and shutdown stops the warm-up', async () => {
    const { database } = await testStores();
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-warm-'));
    await generateGraph({ dataDir, persons: 1500, seed: 3, releaseDate: '2026-01-01', threads: 1 });
    const start = async (matchWarmup: boolean) => {
      const calls: { signal?: AbortSignal; result: Promise<{ keys: number }> }[] = [];
      const service = await startService(testConfig({ host: '127.0.0.1', port: 0, dataDir, matchWarmup }), {
        database,
        logger: false,
        beforeListen: (built) => {
          const warm = built.services.matching.warm.bind(built.services.matching);
          built.services.matching.warm = (o) => {
            const result = warm(o);
            calls.push({ signal: o?.signal, result });
            return result;
          };
        },
      });
      return { service, calls };
    };
    const readyz = async (service: Awaited<ReturnType<typeof start>>['service']) =>
      (await service.built!.app.inject({ method: 'GET', url: '/readyz' })).json();
    const off = await start(false);
    // Without the warm-up nothing builds the index ahead of a match, so readiness does not wait for it.
    expect(await readyz(off.service)).toEqual({ status: 'ready', checks: { control_plane: { ok: true }, graph: { ok: true } } });
    off.service.warmUp();
    await off.service.shutdown();
    expect(off.calls).toHaveLength(0);

    const on = await start(true);
    // The release has no match index yet: not ready until the warm-up has built it.
    expect(await readyz(on.service)).toEqual({
      status: 'not_ready',
      checks: {
        control_plane: { ok: true },
        graph: { ok: true },
        match_index: { ok: false, error: "the current release's match index is being built" },
      },
    });
    on.service.warmUp();
    expect(on.calls).toHaveLength(1);
    expect((await on.calls[0]!.result).keys).toBeGreaterThan(0);
    expect(await readyz(on.service)).toEqual({
      status: 'ready',
      checks: { control_plane: { ok: true }, graph: { ok: true }, match_index: { ok: true } },
    });
    await on.service.shutdown();
    expect(on.calls[0]!.signal?.aborted).toBe(true);
    on.service.warmUp(); // after shutdown: nothing starts
    expect(on.calls).toHaveLength(1);

    // A release without an index and no warm-up asked for (a release switched under a running process):
    // the readiness check itself starts the build, so polling /readyz turns ready.
    await generateGraph({ dataDir, persons: 1200, seed: 4, releaseDate: '2026-02-01', threads: 1 });
    const next = await start(true);
    expect((await readyz(next.service)).checks.match_index).toEqual({
      ok: false,
      error: "the current release's match index is being built",
    });
    await waitFor(async () => (await readyz(next.service)).status === 'ready', 30_000);
    expect(next.calls).toHaveLength(0);
    await next.service.shutdown();
  }, 60_000);

  it('renders the rows EXPORT_RENDERED_ROWS names after start, and again for a release switched under the running process', async () => {
    const { database } = await testStores();
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-render-'));
    await generateGraph({ dataDir, persons: 800, seed: 5, releaseDate: '2026-01-01', threads: 1 });
    const service = await startService(testConfig({ host: '127.0.0.1', port: 0, dataDir, matchWarmup: false }), {
      database,
      logger: false,
    });
    const rendered = (stem: string) =>
      readdirSync(join(dataDir, 'warehouse', 'releases')).filter(
        (f) => f.startsWith(`${stem}.`) && /\.rows-v1-(csv|avro)-[0-9a-f]{16}\.bin$/.test(f),
      );
    try {
      const first = readCurrentRelease(dataDir)!.file.replace(/\.duckdb$/, '');
      expect(rendered(first)).toHaveLength(0);
      service.warmUp();
      await waitFor(async () => rendered(first).length === 2, 30_000);
      await generateGraph({ dataDir, persons: 700, seed: 6, releaseDate: '2026-02-01', threads: 1 });
      const second = readCurrentRelease(dataDir)!.file.replace(/\.duckdb$/, '');
      expect(second).not.toBe(first);
      // The warehouse notices the new pointer on its next use after its check interval; the switch renders the new release's rows.
      await waitFor(async () => {
        await service.built!.services.matchIndex.isBuilt();
        return rendered(second).length === 2;
      }, 30_000);
    } finally {
      await service.shutdown();
    }
  }, 90_000);

  it('exits cleanly on SIGTERM (ads serve)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-sigterm-'));
    const served = await serveProcess(
      ['src/main.ts', 'serve'],
      {
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        GRAPH_PERSONS: '0',
        DATABASE_URL: '',
      },
      90_000,
    );
    expect(served.output()).toMatch(/ads_live_[A-Za-z0-9]{40}/); // first start of an empty data dir prints the demo key
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    expect(await served.stop()).toBe(0);
    expect(served.output()).toContain('SIGTERM: finishing in-flight requests');
  }, 120_000);
});
