import type { FastifyBaseLogger } from 'fastify';
import { build, type BuiltApp } from './app.ts';
import { currentRequestId } from './http/request-context.ts';
import type { Config } from './config/index.ts';
import { openDatabase, type Database } from './db/database.ts';
import { createJobQueue } from './jobs/queue.ts';
import { startJobs, type Worker } from './jobs/worker.ts';
import { systemClock, type Clock } from './lib/clock.ts';

export interface RunningService {
  built: BuiltApp | null;
  database: Database;
  /** Base URL the HTTP API listens on (null for a worker-only process). */
  url: string | null;
  /** Drains and stops: readiness goes 503, in-flight requests finish, the worker stops taking jobs. */
  shutdown(): Promise<void>;
  /**
   * In the background: warms the current match index (identity/matcher/warm.ts) unless MATCH_WARMUP is
   * false or this process serves no HTTP; then, where this process runs jobs, renders the rows
   * EXPORT_RENDERED_ROWS names for deliveries, and again whenever the warehouse switches to a newer
   * release. Call it once a release exists; shutdown stops it.
   */
  warmUp(): void;
}

/**
 * Starts `ads serve`: the HTTP API and/or the worker on one set of stores. Used by the CLI and by the
 * graceful-shutdown tests, so both exercise the same path.
 */
export async function startService(
  config: Config,
  options: {
    clock?: Clock;
    logger?: boolean | object;
    database?: Database;
    beforeListen?: (built: BuiltApp) => Promise<void> | void;
    /** Runs once the listener is up (the demo key is printed only when the service is reachable). */
    afterListen?: (built: BuiltApp, url: string) => Promise<void> | void;
  } = {},
): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const queue = createJobQueue(database, { settings: config.jobs });
  const serveHttp = config.role !== 'worker';
  // Set by warmUp: a release switched under this process gets its rows rendered too.
  let onReleaseSwitch: (() => void) | null = null;
  const built = await build(config, { database, queue, clock, logger: options.logger, onReleaseSwitch: () => onReleaseSwitch?.() });
  const worker: Worker = await startJobs(queue, built.services.jobDefinitions(), { work: config.role !== 'api' });

  let url: string | null = null;
  const warmAbort = new AbortController();
  let warming: Promise<void> = Promise.resolve();
  if (serveHttp && config.matchWarmup) {
    // This process builds and warms the current release's match index in the background (warmUp):
    // until the index exists, a first match would wait for the build (seconds at 1M persons, minutes at
    // 10M), so the process does not call itself ready. The check also starts the build (or joins the one
    // running): after a release switch nothing else would, and a load balancer that waits for readiness
    // would never send the match that builds it. With MATCH_WARMUP off the index is built by the first
    // match instead, and readiness does not wait for it.
    built.readiness.match_index = async () => {
      const index = built.services.matchIndex;
      if (await index.isBuilt()) return;
      index.current().catch((err: unknown) => built.app.log.warn({ err }, 'match index build failed'));
      throw new Error("the current release's match index is being built");
    };
  }
  if (serveHttp) {
    await options.beforeListen?.(built);
    try {
      url = await built.app.listen({ host: config.host, port: config.port });
    } catch (error) {
      // Nothing may keep running behind a failed listen (the process would hang): stop it all.
      await built.app.close().catch(() => {});
      await worker.stop().catch(() => {});
      if (!options.database) await database.close().catch(() => {});
      throw error;
    }
    await options.afterListen?.(built, url);
  } else {
    await built.app.ready();
  }

  let stopping: Promise<void> | null = null;
  return {
    built,
    database,
    url,
    warmUp() {
      if (warmAbort.signal.aborted) return;
      const signal = warmAbort.signal;
      const match = serveHttp && config.matchWarmup ? warmMatchIndexInBackground(built, signal) : Promise.resolve();
      // Export jobs run where the worker runs: that process renders the rows they copy, after the match
      // warm-up (one large build at a time), and again for each release that becomes current later.
      if (config.role === 'api') {
        warming = match;
        return;
      }
      warming = match.then(() => renderRowsInBackground(built, signal));
      onReleaseSwitch = () => {
        if (!signal.aborted) warming = warming.then(() => renderRowsInBackground(built, signal));
      };
    },
    shutdown() {
      stopping ??= (async () => {
        built.beginShutdown();
        // The warm-up stops between statements; let its last one finish before the warehouse closes
        // (bounded: a first index build it may be waiting on uses its own DuckDB instance).
        warmAbort.abort();
        await Promise.race([warming, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
        const grace = setTimeout(() => built.app.server.closeAllConnections?.(), config.shutdownGraceSeconds * 1000);
        grace.unref();
        await built.app.close();
        clearTimeout(grace);
        await worker.stop();
        if (!options.database) await database.close();
      })();
      return stopping;
    },
  };
}

/**
 * Renders the configured templates' rows for the current release (modules/deliveries/rendered-rows.ts).
 * Best effort, like the match warm-up: until they exist, deliveries export row by row.
 */
function renderRowsInBackground(built: BuiltApp, signal: AbortSignal): Promise<void> {
  const log = built.app.log;
  return built.services.deliveries.warmRenderedRows({ signal }).then(
    (files) => {
      if (files.some((f) => f.built)) log.info({ rendered_rows: files }, 'rendered rows built');
    },
    (err: unknown) => log.warn({ err }, 'rendering rows skipped'),
  );
}

/**
 * Loads the match index's lookup structures after start so the first matches are not slow
 * (identity/matcher/warm.ts). Best effort: a graph without a release, or a failure, is only logged.
 */
function warmMatchIndexInBackground(built: BuiltApp, signal: AbortSignal): Promise<void> {
  const log = built.app.log;
  return built.services.matching.warm({ signal }).then(
    (w) => log.info({ warmup: w }, 'match index warmed'),
    (err: unknown) => log.warn({ err }, 'match index warm-up skipped'),
  );
}

/**
 * What a failure no handler caught does to the process (issue #31): it never ends it silently.
 * - An unhandled rejection is logged at error (JSON, with the request id it arose in) and the process
 *   keeps serving: the failed work was a promise nobody awaited, and the state of the rest is intact.
 * - An uncaught exception is logged at fatal (with the request id) and the process stops through the
 *   normal graceful shutdown (`stop`: readiness 503, in-flight requests finish, jobs are released) and
 *   exits non-zero, so a supervisor restarts it: after an exception escaped, Node cannot vouch for the
 *   state it left (a half-written stream, a lock never released), and serving on would hide that.
 * Returns the function that removes both listeners.
 */
export function superviseProcess(log: FastifyBaseLogger, stop: (reason: string) => void): () => void {
  const onRejection = (reason: unknown) => {
    log.error({ err: reason, reqId: currentRequestId() }, 'unhandled promise rejection; the process keeps serving');
  };
  const onException = (error: Error, origin: string) => {
    log.fatal(
      { err: error, reqId: currentRequestId(), origin },
      'uncaught exception; stopping gracefully so the supervisor restarts the process',
    );
    stop('uncaught exception');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
