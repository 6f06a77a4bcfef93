import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { demoBanner, ensureDemoOrganization } from '../bootstrap.ts';
import type { BuiltApp } from '../app.ts';
import { loadConfig, type Config, type Role } from '../config/index.ts';
import { startService, superviseProcess } from '../runtime.ts';
import { ensureDefaultGraph } from './default-graph.ts';
import { UsageError } from './output.ts';

/** Fails before anything is created when another program holds the port. */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(
              `port ${port} on ${host} is already in use; stop what holds it or start with another PORT (e.g. PORT=8081 ads serve)`,
            )
          : error,
      );
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** `ads serve`. `beforeListen` lets a test add routes to the very process this command runs. */
export async function serveCommand(args: string[], hooks: { beforeListen?: (built: BuiltApp) => void } = {}): Promise<void> {
  const { values } = parseArgs({ args, options: { role: { type: 'string' } } });
  if (values.role !== undefined && !['all', 'api', 'worker'].includes(values.role))
    throw new UsageError(`--role must be all, api or worker, not "${values.role}"`);
  const env = values.role ? { ...process.env, ADS_ROLE: values.role as Role } : process.env;
  const config: Config = loadConfig(env);
  if (config.role !== 'worker') await checkPortFree(config.host, config.port);
  // Signals are taken before starting: one that arrives while the service is still starting (its
  // port may already answer) stops it as soon as it is up, instead of killing the process mid-start.
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  let stopping: string | null = null;
  let exitCode = 0;
  const shutdown = (running: NonNullable<typeof service>) =>
    running.shutdown().then(
      () => process.exit(exitCode),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = signal;
    process.stderr.write(`\n${signal}: finishing in-flight requests and jobs, then stopping.\n`);
    if (service) void shutdown(service);
  };
  /** A failure (an uncaught exception): the same graceful stop, bounded, then a non-zero exit for the supervisor. */
  const fail = (reason: string) => {
    exitCode = 1;
    setTimeout(() => process.exit(1), (config.shutdownGraceSeconds + 15) * 1000).unref();
    stop(reason);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  service = await startService(config, {
    beforeListen: hooks.beforeListen,
    afterListen: async (built) => {
      const demo = await ensureDemoOrganization(built.services);
      if (demo) process.stdout.write(demoBanner(demo, config.publicUrl));
    },
  });
  superviseProcess(service.built!.app.log, fail);
  if (stopping) {
    await shutdown(service);
    return;
  }
  process.stderr.write(`ads serve (${config.role}) on ${service.url ?? 'no HTTP (worker role)'}; store: ${service.database.kind}\n`);
  // The default graph is built in the background so the API answers at once (discovery says 503
  // "retry shortly" until the release is ready). Only a process that runs the worker builds it.
  // The match index is warmed once a release exists (docs/decisions/011).
  const graphReady = config.role !== 'api' ? ensureDefaultGraph(config) : Promise.resolve();
  void graphReady.then(
    () => service.warmUp(),
    () => service.warmUp(),
  );
}
