/**
 * GraphPorts over the warehouse reader, the catalog and the discovery engineer's membershipSql: the
 * one place segment counting meets SQL.
 */
import type { FilterCatalog } from '../../../graph/index.ts';
import { membershipSql } from '../../../graph/index.ts';
import type { WarehouseReader } from '../../../graph/index.ts';
import type { Privacy } from '../../privacy/index.ts';
import type { GraphPorts, ReleaseRef } from './ports.ts';
import { referenceZip3Resolver } from './zip3.ts';

export function warehouseGraphPorts(deps: {
  warehouse: WarehouseReader;
  catalog: () => Promise<FilterCatalog>;
  currentRelease: () => ReleaseRef | null;
  personsTable?: string;
  /** WAREHOUSE_STATEMENT_TIMEOUT_MS: a count statement is interrupted past this (WarehouseTimeoutError). */
  statementTimeoutMs?: number;
  /** The privacy layer: counts are measured by member set (count, set hash, low-effect forms in one scan). */
  privacy?: Pick<Privacy, 'measure'>;
}): GraphPorts {
  return {
    catalog: deps.catalog,
    currentRelease: deps.currentRelease,
    zip3: referenceZip3Resolver(),
    async count(query) {
      const catalog = await deps.catalog();
      if (deps.privacy) {
        const run = (sql: string, params: unknown[]) => deps.warehouse.query(sql, params, { timeoutMs: deps.statementTimeoutMs });
        const measured = await deps.privacy.measure(run, query, {
          catalog,
          personsTable: deps.personsTable,
          matched: true,
          persons: deps.currentRelease()?.persons,
          release: deps.currentRelease()?.file,
        });
        return { total: measured.total.n, matched: measured.total.matched?.n ?? null, measured };
      }
      // Without personsTable, membershipSql scans the release's discovery table.
      const m = membershipSql(query, { catalog, personsTable: deps.personsTable });
      const [row] = await deps.warehouse.query(m.count, m.params, { timeoutMs: deps.statementTimeoutMs });
      return { total: Number(row?.n ?? 0), matched: m.matchedWhere ? Number(row?.m ?? 0) : null };
    },
  };
}
