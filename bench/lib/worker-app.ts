/**
 * The service as `ads serve` runs it in one process (API and job worker), for benchmarks that time
 * work done by jobs: the control plane on DATABASE_URL or in memory (PGlite), a fresh pg-boss schema,
 * no rate limiting, and one enterprise organization whose token `call` uses.
 */
import { build } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { startJobs } from '../../src/jobs/worker.ts';

export async function startWorkerBenchApp(o: { dataDir: string; scopes?: string[] }) {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null });
  const queue = createJobQueue(database, { schema: `bench_${Date.now()}` });
  const config = loadConfig({ DATA_DIR: o.dataDir, LOG_LEVEL: 'silent', RATE_LIMITS: JSON.stringify({ enterprise: 1_000_000 }) });
  const { app, services } = await build(config, { database, queue, logger: false });
  await app.ready();
  const worker = await startJobs(queue, services.jobDefinitions(), { work: true });
  const org = await services.organizations.createOrganization({ name: 'bench', tier: 'enterprise' });
  const owner = await services.organizations.addUser({ orgId: org.id, email: 'bench@example.com', role: 'owner' });
  const key = await services.apiKeys.issueKey({
    orgId: org.id,
    userId: owner.id,
    name: 'bench',
    scopes: o.scopes ?? ['discovery', 'creator'],
  });
  const token = (await services.auth.exchangeApiKey(key.raw_key)).access_token;
  /** An authenticated request; anything but a 2xx throws with the answer. */
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  return {
    app,
    services,
    org,
    token,
    call,
    async close() {
      await worker.stop();
      await app.close();
      await database.close();
    },
  };
}
