/**
 * Wires micro-batch matching (issue #5): the lazily built match index, the matcher, billing of the
 * usage ledger and the idempotent POST /v1/match. services.ts calls this once.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { Warehouse } from '../../graph/warehouse.ts';
import type { IdempotencyService } from '../../http/idempotency/service.ts';
import type { Clock } from '../../lib/clock.ts';
import { serverSecret } from '../../lib/server-secrets.ts';
import { createBillingService } from '../billing/service.ts';
import type { CatalogField, CatalogTemplate } from '../catalog/types.ts';
import { createMatchIndexProvider } from './match-index.ts';
import { createMatchingService, type MatchingDeps } from './service.ts';

/** server_secrets name of the person-id key: every process and every matching path must share it. */
export const PERSON_ID_SECRET = 'iag_person_id';

export function createMatchingModule(deps: {
  config: Config;
  db: Kysely<DB>;
  clock: Clock;
  warehouse: Warehouse;
  idempotency: IdempotencyService;
  catalog: { fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] };
  organizations: MatchingDeps['organizations'];
}) {
  const { config, db, clock } = deps;
  const billing = createBillingService({ db, clock, rates: config.usageRates });
  const index = createMatchIndexProvider({
    warehouse: deps.warehouse,
    dataDir: config.dataDir,
    threads: config.discovery.duckdbThreads ?? 2,
    // Not DUCKDB_MEMORY_LIMIT: the build is a short-lived instance of its own whose ART indexes cannot
    // spill (at 10M persons it fails under a 2 GB limit); it keeps the builder's default.
  });
  let secret: Promise<string> | null = null;
  const personIdSecret = () => {
    secret ??= serverSecret(db, PERSON_ID_SECRET);
    secret.catch(() => { secret = null; });
    return secret;
  };
  const matching = createMatchingService({
    db, clock, warehouse: deps.warehouse, index, billing, idempotency: deps.idempotency, catalog: deps.catalog,
    organizations: deps.organizations, personIdSecret, dataDir: config.dataDir,
  });
  return { matching, billing, matchIndex: index };
}
