/**
 * Discovery: count and lookup over the current release (spec 4.2). Per request: resolve and compile
 * the input once, charge the compute budget (one control-plane upsert), run one warehouse query,
 * apply the privacy floor. Nothing here knows HTTP.
 */
import fs from 'node:fs';
import type { Tier } from '../../config.ts';
import { indexCatalog } from '../../graph/filters/catalog-index.ts';
import { nearest } from '../../graph/filters/text.ts';
import { membershipSql } from '../../graph/membership/sql.ts';
import { BREAKDOWN_CODES_TABLE, DISCOVERY_TABLE } from '../../graph/discovery-table.ts';
import { PERSON_COLUMNS } from '../../graph/schema.ts';
import { AppError } from '../../http/errors.ts';
import { CatalogUnavailableError, catalogUnavailable, type CatalogService } from '../catalog/service.ts';
import { isGroupable } from '../catalog/routes.ts';
import type { CatalogField } from '../catalog/types.ts';
import { estimateScanBytes, type ComputeBudget } from './budget.ts';
import {
  DEFAULT_BREAKDOWNS, breakdownCountSql, columnDimension, groupedCountSql, readBreakdownCounts, readGroupedCounts, suppressDimension, type Dimension,
} from './breakdowns.ts';
import { noSegments, resolveDiscoveryInput, type DiscoveryInputBody, type SegmentInputResolver } from './input.ts';
import { buildLookup, readLookup, validateLookupFields } from './lookup.ts';
import { assertFloor, type DifferencingGuard } from './privacy.ts';
import type { CountResult } from './schemas.ts';
import { toClientError, withWarehouse, type WarehouseReader } from './warehouse-errors.ts';

export interface DiscoveryDeps {
  warehouse: WarehouseReader;
  catalog: CatalogService;
  budget: ComputeBudget;
  tierOf: (orgId: string) => Promise<Tier | null>;
  guard: DifferencingGuard;
  floor: number;
  segments?: SegmentInputResolver;
  /** Table discovery scans; default the release's discovery table. */
  personsTable?: string;
}

export interface CountBody extends DiscoveryInputBody {
  group_by?: string;
}

export interface LookupBody extends DiscoveryInputBody {
  limit?: number;
  fields: string[];
}

const COLUMN_TYPES: Record<string, string> = { ...PERSON_COLUMNS, breakdown_key: 'BIGINT' };

export function createDiscoveryService(deps: DiscoveryDeps) {
  const { warehouse, catalog, budget, tierOf, guard, floor } = deps;
  const personsTable = deps.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  let segments = deps.segments ?? noSegments;

  /** The catalog, with warehouse unavailability surfaced as 502/503 (not FILTER_CATALOG_UNAVAILABLE). */
  async function fields(): Promise<readonly CatalogField[]> {
    try {
      return (await catalog.getCatalog()).fields;
    } catch (err) {
      const mapped = toClientError((err as { cause?: unknown }).cause);
      if (mapped instanceof AppError) throw mapped;
      if (err instanceof CatalogUnavailableError) throw catalogUnavailable(err);
      throw err;
    }
  }

  async function prepare(orgId: string, body: DiscoveryInputBody) {
    const catalogFields = await fields();
    const input = await resolveDiscoveryInput(orgId, body, { catalog: async () => catalogFields, segments });
    const m = membershipSql(input.query, { catalog: catalogFields, personsTable });
    const release = await withWarehouse(async () => warehouse.release());
    return { catalogFields, input, m, release };
  }

  async function charge(orgId: string, rows: number, columns: Iterable<string>, parquetPaths: string[]): Promise<number> {
    let extra = 0;
    for (const p of parquetPaths) {
      try { extra += fs.statSync(p).size; } catch { /* a missing set fails in the query with its own error */ }
    }
    const bytes = estimateScanBytes(rows, columns, COLUMN_TYPES, extra);
    await budget.charge(orgId, (await tierOf(orgId)) ?? 'paygo', bytes);
    return bytes;
  }

  function groupDimension(catalogFields: readonly CatalogField[], name: string): Dimension {
    const field = indexCatalog(catalogFields).resolve(name);
    if (!field) {
      const suggestions = nearest(name, catalogFields.filter(isGroupable).map((f) => f.name));
      throw new AppError('INVALID_GROUP_BY', 400, `\`group_by\`: unknown field \`${name}\`.${suggestions.length ? ` Did you mean ${suggestions.join(', ')}?` : ''}`, {
        issues: [{ path: '$.group_by', code: 'UNKNOWN_FILTER_FIELD', message: `Unknown field \`${name}\`.`, suggestions }],
        nextStep: 'Use a field with `groupable: true` from GET /v1/catalog/fields.',
      });
    }
    if (!isGroupable(field)) {
      const why = field.pii ? 'is personally identifying' : 'holds a list of values';
      throw new AppError('INVALID_GROUP_BY', 400, `\`group_by\`: \`${field.name}\` ${why} and cannot be grouped by.`, {
        issues: [{ path: '$.group_by', code: 'FIELD_NOT_GROUPABLE', message: `\`${field.name}\` ${why}.`, suggestions: [] }],
        nextStep: 'Use a field with `groupable: true` from GET /v1/catalog/fields.',
      });
    }
    return columnDimension(field.name, (field.storage as { column: string }).column);
  }

  return {
    /** Lets the segments module plug in its resolver after both services exist. */
    useSegmentResolver(resolver: SegmentInputResolver): void {
      segments = resolver;
    },

    async count(orgId: string, body: CountBody): Promise<CountResult> {
      const { catalogFields, input, m, release } = await prepare(orgId, body);
      const dims: Dimension[] = body.group_by !== undefined
        ? [groupDimension(catalogFields, body.group_by)]
        : input.breakdownsByDefault ? [...DEFAULT_BREAKDOWNS] : [];
      const columns = [...m.columns, ...dims.flatMap((d) => d.columns)];
      const bytes = await charge(orgId, release.persons, columns, m.parquetPaths);

      let total: number;
      let matched: number | null = null;
      let grouped: ReturnType<typeof readGroupedCounts> | null = null;
      if (dims.length === 0) {
        const [row] = await withWarehouse(() => warehouse.query(m.count, m.params));
        total = Number(row?.n ?? 0);
        if (m.matchedWhere) matched = Number(row?.m ?? 0);
      } else {
        const sql = body.group_by !== undefined
          ? groupedCountSql(dims, personsTable, m.where, m.matchedWhere)
          : breakdownCountSql(personsTable, `graph.${BREAKDOWN_CODES_TABLE}`, m.where, m.matchedWhere);
        const rows = await withWarehouse(() => warehouse.query(sql, m.params));
        grouped = body.group_by !== undefined ? readGroupedCounts(dims, rows) : readBreakdownCounts(dims, rows, m.matchedWhere !== null);
        total = grouped.total;
        matched = grouped.matched;
      }

      assertFloor(total, floor);
      guard.check(orgId, `${input.key}|${release.file}`, total);

      const out: CountResult = {
        count: total,
        privacy_floor: floor,
        estimated_bytes_scanned: bytes,
        data_release: { major: release.major, minor: release.minor },
      };
      if (m.matchedWhere) out.matched_count = matched !== null && matched >= floor ? matched : null;
      if (grouped && body.group_by !== undefined) {
        const dim = dims[0]!;
        const s = suppressDimension(dim, grouped.buckets.get(dim.name)!, floor);
        Object.assign(out, { group_by: dim.name, groups: s.groups, suppressed_groups: s.suppressed_groups });
        if (s.truncated_groups) out.truncated_groups = s.truncated_groups;
      } else if (grouped) {
        out.breakdowns = Object.fromEntries(dims.map((d) => [d.name, suppressDimension(d, grouped.buckets.get(d.name)!, floor)])) as CountResult['breakdowns'];
      }
      return out;
    },

    async lookup(orgId: string, body: LookupBody) {
      const catalogFields = await fields();
      const selected = validateLookupFields(catalogFields, body.fields);
      const { input, m, release } = await prepare(orgId, body);
      const limit = body.limit ?? 10;
      await charge(orgId, release.persons, [...m.columns, ...selected.map((f) => f.storage.column)], m.parquetPaths);
      const sql = buildLookup(personsTable, m.where, selected, limit);
      const rows = await withWarehouse(() => warehouse.query(sql, m.params));
      const { total, records } = readLookup(rows, selected);
      assertFloor(total, floor);
      guard.check(orgId, `${input.key}|${release.file}`, total);
      return {
        rows: records,
        total_matched: total,
        available_fields: catalogFields.filter((f) => !f.pii).map((f) => f.name),
        data_release: { major: release.major, minor: release.minor },
      };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
