import { parseArgs } from 'node:util';
import { demoBanner, ensureDemoOrganization } from '../bootstrap.ts';
import { loadConfig, type Config, type Role } from '../config.ts';
import { startService } from '../runtime.ts';
import { ensureDefaultGraph } from './default-graph.ts';

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { role: { type: 'string' } } });
  const env = values.role ? { ...process.env, ADS_ROLE: values.role as Role } : process.env;
  const config: Config = loadConfig(env);
  const service = await startService(config, {
    beforeListen: async (built) => {
      const demo = await ensureDemoOrganization(built.services);
      if (demo) process.stdout.write(demoBanner(demo, config.publicUrl));
    },
  });
  const stop = (signal: string) => {
    process.stderr.write(`\n${signal}: finishing in-flight requests and jobs, then stopping.\n`);
    service.shutdown().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.stderr.write(`ads serve (${config.role}) on ${service.url ?? 'no HTTP (worker role)'}; store: ${service.database.kind}\n`);
  // The default graph is built in the background so the API answers at once (discovery says 503
  // "retry shortly" until the release is ready). Only a process that runs the worker builds it.
  // The match index is warmed once a release exists (docs/decisions/011).
  const graphReady = config.role !== 'api' ? ensureDefaultGraph(config) : Promise.resolve();
  void graphReady.then(() => service.warmMatchIndex(), () => service.warmMatchIndex());
}
