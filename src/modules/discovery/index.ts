/**
 * Wires the data plane of discovery: one warehouse client per process (opened on config.dataDir,
 * closed with the app), the catalog, the data-release registry, the compute budget and discovery.
 * services.ts calls this once; app.ts registers the routes and the `warehouse` readiness check.
 */
import type { Config, Tier } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { openWarehouse } from '../../graph/warehouse.ts';
import { readCurrentRelease } from '../../graph/releases.ts';
import type { Clock } from '../../lib/clock.ts';
import { CATALOG_FIELDS } from '../catalog/fields.ts';
import { createCatalogService } from '../catalog/service.ts';
import { CATALOG_TEMPLATES } from '../catalog/templates.ts';
import { createDataReleaseService } from '../data-release/service.ts';
import { createComputeBudget } from './budget.ts';
import { createDifferencingGuard } from './privacy.ts';
import { createDiscoveryService } from './service.ts';

export async function createDiscoveryModule(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  tierOf: (orgId: string) => Promise<Tier | null>;
}) {
  const { config, clock } = deps;
  const settings = config.discovery;
  const warehouse = await openWarehouse({
    dataDir: config.dataDir,
    ...(settings.duckdbMemoryLimit ? { memoryLimit: settings.duckdbMemoryLimit } : {}),
    ...(settings.duckdbThreads ? { threads: settings.duckdbThreads } : {}),
  });
  const catalog = createCatalogService({ warehouse, fields: CATALOG_FIELDS, templates: CATALOG_TEMPLATES });
  const dataRelease = createDataReleaseService({ readRelease: () => readCurrentRelease(config.dataDir), clock, ttlSeconds: settings.releaseCacheSeconds });
  const discovery = createDiscoveryService({
    warehouse,
    catalog,
    budget: createComputeBudget({ db: deps.database.db, clock, budgets: settings.computeBudgetBytes }),
    tierOf: deps.tierOf,
    guard: createDifferencingGuard({ clock, floor: settings.privacyFloor, windowSeconds: settings.differencingWindowSeconds }),
    floor: settings.privacyFloor,
  });
  return { warehouse, catalog, dataRelease, discovery };
}
