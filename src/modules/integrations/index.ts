/**
 * Outbound integrations (spec 1, 2, 3, 4.8; issue 20): provider adapters (providers/: HubSpot CRM, Mailchimp),
 * connections made through the provider's OAuth with tokens sealed at rest, and integration runs of kinds
 * batch_enrichment (pull contacts, match, write back), file_enrichment (an enriched file) and ingest
 * (matched records), billed through the ledger less the contract discount when native.
 * Every provider call goes through the outbound-target policy (src/lib/outbound).
 */
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { IntegrationSettings } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OutboundPolicy } from '../../lib/outbound/index.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';
import type { BillingService, ContractTerms } from '../billing/index.ts';
import type { MatchingService } from '../matching/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { createCollectionsPart, type CollectionsPartDeps } from './collections-module.ts';
import { createConnectionService } from './connections.ts';
import { integrationOperations } from './operations.ts';
import { providerRegistry, type ProviderAdapter } from './providers/index.ts';
import type { AudienceDeliveries } from './push.ts';
import { createRunner } from './runner.ts';
import { createRunService, INTEGRATION_RUN_JOB } from './runs.ts';
import { createTokenBox } from './token-box.ts';

export function createIntegrationsModule(deps: {
  db: Kysely<DB>;
  queue: Pick<JobQueue, 'send'>;
  clock: Clock;
  /** DATA_DIR: file_enrichment files go to its integration-runs folder unless settings.filesDir says otherwise. */
  dataDir: string;
  keys: Pick<ServerKeys, 'secret'>;
  settings: IntegrationSettings;
  policy: OutboundPolicy;
  matching: Pick<MatchingService, 'matchUnbilled' | 'checkFieldList'>;
  billing: Pick<BillingService, 'reserveCents' | 'settle' | 'release'>;
  termsOf(orgId: string): Promise<ContractTerms>;
  events: Pick<EventService, 'emit'>;
  findUser(orgId: string, userId: string): Promise<{ role: string; status: string } | undefined>;
  /** Match collections and execution-key runs (decision 050). */
  collections: CollectionsPartDeps;
  /** The deliveries area's public API, for activation and export runs (wired lazily: it is built later). */
  deliveries: AudienceDeliveries;
  /** Adapters to use instead of the configured ones (tests of a provider not configured). */
  adapters?: Map<string, ProviderAdapter>;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { db, clock } = deps;
  const filesDir = deps.settings.filesDir || path.join(deps.dataDir, 'integration-runs');
  const adapters = deps.adapters ?? providerRegistry(deps.settings, deps.policy);
  const connections = createConnectionService({
    db,
    clock,
    adapters,
    box: createTokenBox(deps.keys),
    findUser: deps.findUser,
    log: deps.log,
  });
  const runs = createRunService({
    db,
    clock,
    queue: deps.queue,
    connections,
    checkFieldList: (f) => deps.matching.checkFieldList(f),
    filesDir,
    checkAudience: (viewer, audienceId) => deps.deliveries.check(viewer, audienceId),
  });
  const part = createCollectionsPart({ db, clock, events: deps.events, ...deps.collections });
  const runner = createRunner({
    db,
    clock,
    filesDir,
    connections,
    matching: deps.matching,
    billing: deps.billing,
    termsOf: deps.termsOf,
    events: deps.events,
    maxContacts: deps.settings.maxContactsPerRun,
    deliveries: deps.deliveries,
    collections: part.collections,
  });
  const definition: JobDefinition<{ run_id: string }> = {
    name: INTEGRATION_RUN_JOB,
    queue: { retryLimit: 2, retryDelay: 30 },
    handle: async (data) => runner.execute(data.run_id),
  };
  return {
    connections,
    runs,
    runner,
    executions: part.executions,
    collections: part.collections,
    collectionRefresh: part.refresh,
    operations: [...integrationOperations({ connections, runs }), ...part.operations],
    jobDefinitions: (): JobDefinition[] => [definition, ...part.jobDefinitions()],
  };
}

export type IntegrationsModule = ReturnType<typeof createIntegrationsModule>;
export { INTEGRATION_RUN_JOB } from './runs.ts';
export { COLLECTION_REFRESH_CRON, COLLECTION_REFRESH_JOB } from './collections-capture.ts';
export { executionRunId } from './execution-key.ts';
export type { ProviderAdapter } from './providers/index.ts';
