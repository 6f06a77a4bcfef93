/**
 * The catalog area: the field catalog checked against the current release, the data-release registry,
 * and the mapping of warehouse unavailability to client errors that every graph reader shares.
 */
import type { ReleaseInfo } from '../../graph/index.ts';
import type { WarehouseReader } from '../../graph/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { createDataReleaseService } from './data-release.ts';
import { CATALOG_FIELDS } from '../../graph/index.ts';
import { catalogOperations } from './operations.ts';
import { createCatalogService } from './service.ts';
import { CATALOG_TEMPLATES } from './templates.ts';

export function createCatalogModule(deps: {
  warehouse: WarehouseReader;
  readRelease: () => ReleaseInfo | null;
  clock: Clock;
  releaseCacheSeconds: number;
}) {
  const catalog = createCatalogService({ warehouse: deps.warehouse, fields: CATALOG_FIELDS, templates: CATALOG_TEMPLATES });
  const dataRelease = createDataReleaseService({ readRelease: deps.readRelease, clock: deps.clock, ttlSeconds: deps.releaseCacheSeconds });
  return { catalog, dataRelease, operations: catalogOperations({ catalog, dataRelease }) };
}

export { CATALOG_FIELDS } from '../../graph/index.ts';
export { CATALOG_TEMPLATES } from './templates.ts';
export {
  CatalogUnavailableError,
  catalogUnavailable,
  isGroupable,
  warehouseCauseOf,
  type Catalog,
  type CatalogService,
} from './service.ts';
export type { DataReleaseService, DataReleaseView } from './data-release.ts';
