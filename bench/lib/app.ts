/**
 * The app as benchmarks run it: the real stack on a loopback port, an embedded control plane in a
 * temp dir, no rate limiting, and one organization (enterprise tier) with a token of the given scopes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../../src/app.ts';
import { loadConfig, TIERS, type Config, type Tier } from '../../src/config/index.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';

export async function startBenchApp(o: { dataDir: string; scopes: string[]; env?: NodeJS.ProcessEnv; tune?: (config: Config) => void }) {
  const config = loadConfig(
    { DATA_DIR: o.dataDir, LOG_LEVEL: 'silent', ...o.env },
    { rateLimits: Object.fromEntries(TIERS.map((t: Tier) => [t, 1_000_000])) as never },
  );
  o.tune?.(config);
  const database = await openDatabase({ databaseUrl: null, dataDir: mkdtempSync(path.join(tmpdir(), 'ads-bench-pg-')) });
  const queue = createJobQueue(database);
  // BENCH_LOG=1 logs the service's errors (a bench that gets a 500 shows why).
  const { app, services } = await build(config, { database, queue, logger: process.env.BENCH_LOG ? ({ level: 'error' } as never) : false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const org = await services.organizations.createOrganization({ name: 'Bench', tier: 'enterprise' });
  const owner = await services.organizations.addUser({ orgId: org.id, email: 'bench@example.com', role: 'owner' });
  const key = await services.apiKeys.issueKey({ orgId: org.id, userId: owner.id, name: 'bench', scopes: o.scopes });
  const token = (await services.auth.exchangeApiKey(key.raw_key)).access_token;
  return {
    app,
    services,
    address,
    token,
    queue,
    async close() {
      await app.close();
      await queue.stop?.();
      await database.close();
    },
  };
}
