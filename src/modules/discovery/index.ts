/**
 * Discovery (spec 4.2): counts and masked samples over the current release, through the compute budget
 * and the privacy layer (src/modules/privacy). Saved segments and audiences resolve through the segments area.
 */
import type { DiscoverySettings, Tier } from '../../config/index.ts';
import type { Database } from '../../db/database.ts';
import type { WarehouseReader } from '../../graph/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CatalogService } from '../catalog/index.ts';
import { createQuestionLog, type Privacy } from '../privacy/index.ts';
import { createComputeBudget } from './budget.ts';
import type { SegmentInputResolver } from './input.ts';
import { discoveryOperations } from './operations.ts';
import { createDiscoveryService } from './service.ts';

export function createDiscoveryModule(deps: {
  settings: DiscoverySettings;
  database: Database;
  clock: Clock;
  warehouse: WarehouseReader;
  catalog: CatalogService;
  segments: SegmentInputResolver;
  privacy: Privacy;
  tierOf: (orgId: string) => Promise<Tier | null>;
  /** WAREHOUSE_STATEMENT_TIMEOUT_MS: a question's statements are interrupted past this. */
  statementTimeoutMs?: number;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { settings, clock } = deps;
  const discovery = createDiscoveryService({
    warehouse: deps.warehouse,
    catalog: deps.catalog,
    budget: createComputeBudget({ db: deps.database.db, clock, budgets: settings.computeBudgetBytes }),
    tierOf: deps.tierOf,
    privacy: deps.privacy,
    segments: deps.segments,
    statementTimeoutMs: deps.statementTimeoutMs,
    questions: createQuestionLog({
      db: deps.database.db,
      now: () => clock.now(),
      settings: settings.questionRuns,
      ...(deps.log ? { log: deps.log } : {}),
    }),
  });
  return { discovery, operations: discoveryOperations({ discovery, fields: deps.catalog.fields }) };
}

export type { DiscoveryService } from './service.ts';
