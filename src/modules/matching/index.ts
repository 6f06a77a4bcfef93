/**
 * Micro-batch matching (spec 4.5 POST /v1/match): the lazily built match index, the matcher, and the
 * charge through billing. The composition root calls this once.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';
import type { Warehouse } from '../../graph/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { PERSON_ID_SECRET, type ServerKeys } from '../../db/server-secrets.ts';
import type { BillingService } from '../billing/index.ts';
import type { SegmentsApi } from '../segments/index.ts';
import { createMatchIndexProvider } from './match-index.ts';
import { matchingOperations } from './operations.ts';
import { createMatchingService, type MatchingDeps } from './service.ts';

export function createMatchingModule(deps: {
  config: Config;
  db: Kysely<DB>;
  keys: Pick<ServerKeys, 'secret'>;
  clock: Clock;
  warehouse: Warehouse;
  billing: BillingService;
  segments: SegmentsApi;
  catalog: { fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] };
  organizations: MatchingDeps['organizations'];
}) {
  const { config, db, clock } = deps;
  const index = createMatchIndexProvider({
    warehouse: deps.warehouse,
    dataDir: config.dataDir,
    threads: config.discovery.duckdbThreads ?? 2,
    // Not DUCKDB_MEMORY_LIMIT: the build is a short-lived instance of its own whose ART indexes cannot
    // spill (at 10M persons it fails under a 2 GB limit); it keeps the builder's default.
  });
  const personIdSecret = () => deps.keys.secret(PERSON_ID_SECRET);
  const matching = createMatchingService({
    db,
    clock,
    warehouse: deps.warehouse,
    index,
    billing: deps.billing,
    segments: deps.segments,
    catalog: deps.catalog,
    organizations: deps.organizations,
    personIdSecret,
    dataDir: config.dataDir,
  });
  return { matching, matchIndex: index, operations: matchingOperations({ matching }) };
}

export type { MatchingService } from './service.ts';
export { selectFields, DEFAULT_TEMPLATE, type FieldSelection } from './fields.ts';
export { enrichmentKey } from './schemas.ts';
export { basesAllowing, disclose, disclosureBasis, DISCLOSURE_BASES, type DisclosureBasis } from './disclosure.ts';
export { scratchLevelsPath } from './scratch.ts';
