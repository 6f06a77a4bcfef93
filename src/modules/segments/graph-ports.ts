/**
 * GraphPorts over the warehouse reader, the catalog and the discovery engineer's membershipSql: the
 * one place segment counting meets SQL.
 */
import type { FilterCatalog } from '../../graph/filters/index.ts';
import { DISCOVERY_TABLE } from '../../graph/discovery-table.ts';
import { membershipSql } from '../../graph/membership/sql.ts';
import type { WarehouseReader } from '../discovery/warehouse-errors.ts';
import type { GraphPorts, ReleaseRef } from './ports.ts';
import { referenceZip3Resolver } from './zip3.ts';

export function warehouseGraphPorts(deps: {
  warehouse: WarehouseReader;
  catalog: () => Promise<FilterCatalog>;
  currentRelease: () => ReleaseRef | null;
  personsTable?: string;
}): GraphPorts {
  const personsTable = deps.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  return {
    catalog: deps.catalog,
    currentRelease: deps.currentRelease,
    zip3: referenceZip3Resolver(),
    async count(query) {
      const m = membershipSql(query, { catalog: await deps.catalog(), personsTable });
      const [row] = await deps.warehouse.query(m.count, m.params);
      return { total: Number(row?.n ?? 0), matched: m.matchedWhere ? Number(row?.m ?? 0) : null };
    },
  };
}
