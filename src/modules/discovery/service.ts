/**
 * Discovery: count and lookup over the current release (spec 4.2). Per request: resolve and compile
 * the input once, charge the compute budget (one control-plane upsert), run one warehouse query,
 * show every number and row through the privacy layer (noise, floor, masked k-anonymous rows).
 * Nothing here knows HTTP.
 */
import fs from 'node:fs';
import type { Tier } from '../../config/index.ts';
import { indexCatalog } from '../../graph/index.ts';
import { nearest } from '../../graph/index.ts';
import { membershipSql } from '../../graph/index.ts';
import { DISCOVERY_TABLE } from '../../graph/index.ts';
import { PERSON_COLUMNS } from '../../graph/index.ts';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { CatalogField } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { toClientError, withWarehouse, type ReleaseInfo, type WarehouseReader } from '../../graph/index.ts';
import { CatalogUnavailableError, catalogUnavailable, isGroupable, type CatalogService } from '../catalog/index.ts';
import { estimateScanBytes, type ComputeBudget } from './budget.ts';
import { DEFAULT_BREAKDOWNS, columnDimension, protectDimension, type Dimension } from './breakdowns.ts';
import { resolveDiscoveryInput, type DiscoveryInputBody, type SegmentInputResolver } from './input.ts';
import { readLookup, validateLookupFields } from './lookup.ts';
import { joinParts, lookupParts, maskedLookupSql, type Privacy, type QuestionRecorder } from '../privacy/index.ts';
import type { CountResult } from './schemas.ts';

export interface DiscoveryDeps {
  warehouse: WarehouseReader;
  catalog: CatalogService;
  budget: ComputeBudget;
  tierOf: (orgId: string) => Promise<Tier | null>;
  privacy: Privacy;
  segments: SegmentInputResolver;
  /** Table discovery scans; default the release's discovery table. */
  personsTable?: string;
  /** The organization's record of questions (defence in depth: runs of near-identical questions); none when unset. */
  questions?: QuestionRecorder;
  /** Warehouse statements of one question are interrupted past this (503 QUERY_TIMEOUT); none when unset. */
  statementTimeoutMs?: number;
}

export interface CountBody extends DiscoveryInputBody {
  group_by?: string;
}

export interface LookupBody extends DiscoveryInputBody {
  limit?: number;
  fields: string[];
}

const COLUMN_TYPES: Record<string, string> = { ...PERSON_COLUMNS, breakdown_key: 'BIGINT' };

/** Bytes charged per row for each condition beyond the first (see charge). */
export const CONDITION_WORK_BYTES = 4;

/** Conditions of a filter question (list values count as conditions in 64s, as IN evaluates them in batches). */
function conditionCount(query: { kind: string; groups?: readonly { filters: readonly { value?: unknown }[] }[] }): number {
  if (query.kind !== 'filters' || !query.groups) return 0;
  let n = 0;
  for (const g of query.groups) for (const c of g.filters) n += 1 + (Array.isArray(c.value) ? Math.floor(c.value.length / 64) : 0);
  return n;
}

export function createDiscoveryService(deps: DiscoveryDeps) {
  const { warehouse, catalog, budget, tierOf, privacy } = deps;
  const floor = privacy.floor;
  const personsTable = deps.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  const { segments, questions } = deps;

  /** The catalog, with warehouse unavailability surfaced as 502/503 (not FILTER_CATALOG_UNAVAILABLE). */
  async function fields(): Promise<readonly CatalogField[]> {
    try {
      return (await catalog.getCatalog()).fields;
    } catch (err) {
      const mapped = toClientError((err as { cause?: unknown }).cause);
      if (mapped instanceof DomainError) throw mapped;
      if (err instanceof CatalogUnavailableError) throw catalogUnavailable(err);
      throw err;
    }
  }

  async function prepare(viewer: Viewer, body: DiscoveryInputBody) {
    const catalogFields = await fields();
    const input = await resolveDiscoveryInput(viewer, body, { catalog: async () => catalogFields, segments });
    const m = membershipSql(input.query, { catalog: catalogFields, personsTable });
    const release = await withWarehouse(async () => warehouse.release());
    return { catalogFields, input, m, release };
  }

  const bounded = { timeoutMs: deps.statementTimeoutMs };

  /**
   * Charges the scan estimate plus the work of the conditions: each condition beyond the first
   * evaluates a column again (60,000 conditions on one column once cost 73 s yet were charged like
   * one), so it is charged as one more 4-byte read per row.
   */
  async function charge(orgId: string, rows: number, columns: Iterable<string>, parquetPaths: string[], conditions = 0): Promise<number> {
    let extra = rows * CONDITION_WORK_BYTES * Math.max(0, conditions - 1);
    for (const p of parquetPaths) {
      try {
        extra += fs.statSync(p).size;
      } catch {
        /* a missing set fails in the query with its own error */
      }
    }
    const bytes = estimateScanBytes(rows, columns, COLUMN_TYPES, extra);
    await budget.charge(orgId, (await tierOf(orgId)) ?? 'paygo', bytes);
    return bytes;
  }

  function groupDimension(catalogFields: readonly CatalogField[], name: string): Dimension {
    const field = indexCatalog(catalogFields).resolve(name);
    if (!field) {
      const suggestions = nearest(
        name,
        catalogFields.filter(isGroupable).map((f) => f.name),
      );
      throw new DomainError(
        'INVALID_GROUP_BY',
        `\`group_by\`: unknown field \`${name}\`.${suggestions.length ? ` Did you mean ${suggestions.join(', ')}?` : ''}`,
        {
          issues: [{ path: '$.group_by', code: 'UNKNOWN_FILTER_FIELD', message: `Unknown field \`${name}\`.`, suggestions }],
          nextStep: 'Use a field with `groupable: true` from GET /v1/catalog/fields.',
        },
      );
    }
    if (!isGroupable(field)) {
      const why = field.pii ? 'is personally identifying' : 'holds a list of values';
      throw new DomainError('INVALID_GROUP_BY', `\`group_by\`: \`${field.name}\` ${why} and cannot be grouped by.`, {
        issues: [{ path: '$.group_by', code: 'FIELD_NOT_GROUPABLE', message: `\`${field.name}\` ${why}.`, suggestions: [] }],
        nextStep: 'Use a field with `groupable: true` from GET /v1/catalog/fields.',
      });
    }
    return columnDimension(field.name, (field.storage as { column: string }).column);
  }

  /**
   * The parts of the question rows may come from: each OR branch of raw filters whose own true count
   * meets the floor (one count per branch); any other question is one part, checked with its total.
   */
  async function eligibleParts(
    catalogFields: readonly CatalogField[],
    query: MembershipQuery,
    release: ReleaseInfo,
  ): Promise<MembershipQuery[]> {
    const parts = lookupParts(query);
    if (parts.length === 1) return parts;
    const out: MembershipQuery[] = [];
    const run = (sql: string, params: unknown[]) => withWarehouse(() => warehouse.query(sql, params, bounded));
    for (const part of parts) {
      // A part is eligible when its own member set would be shown (its set-seeded threshold; a one-person
      // condition inside it has no effect).
      const measured = await privacy.measure(run, part, {
        catalog: catalogFields,
        personsTable,
        persons: release.persons,
        release: release.file,
      });
      if (!privacy.protectSet({ set: measured.total, facet: 'lookup_part' }).suppressed) out.push(measured.query);
    }
    return out;
  }

  return {
    async count(viewer: Viewer, body: CountBody): Promise<CountResult> {
      const orgId = viewer.orgId;
      const { catalogFields, input, m, release } = await prepare(viewer, body);
      const dims: Dimension[] =
        body.group_by !== undefined
          ? [groupDimension(catalogFields, body.group_by)]
          : input.breakdownsByDefault
            ? [...DEFAULT_BREAKDOWNS]
            : [];
      const columns = [...m.columns, ...dims.flatMap((d) => d.columns)];
      const bytes = await charge(orgId, release.persons, columns, m.parquetPaths, conditionCount(input.query));

      // Measured by member set (privacy/sets.ts): counts, set hashes and low-effect forms in one scan.
      const run = (sql: string, params: unknown[]) => withWarehouse(() => warehouse.query(sql, params, bounded));
      const grouping =
        body.group_by !== undefined
          ? { dim: { name: dims[0]!.name, column: dims[0]!.column!, field: dims[0]!.name } }
          : dims.length > 0
            ? { breakdown: true }
            : {};
      const measured = await privacy.measure(run, input.query, {
        catalog: catalogFields,
        personsTable,
        persons: release.persons,
        release: release.file,
        matched: m.matchedWhere !== null,
        ...grouping,
      });
      const set = measured.total;
      const out: CountResult = {
        count: privacy.protectTotal({ question: privacy.question(input.query), trueCount: set.n, set }),
        privacy_floor: floor,
        estimated_bytes_scanned: bytes,
        data_release: { major: release.major, minor: release.minor },
      };
      if (m.matchedWhere)
        out.matched_count =
          set.matched === null ? null : privacy.protectSet({ set: { ...set.matched, layers: set.layers }, facet: 'matched' }).count;
      const bucketsOf = (d: Dimension) => measured.buckets.filter((b) => b.dimension === d.name);
      if (body.group_by !== undefined) {
        const dim = dims[0]!;
        const s = protectDimension(privacy, dim, bucketsOf(dim));
        Object.assign(out, { group_by: dim.name, groups: s.groups, suppressed_groups: s.suppressed_groups });
        if (s.truncated_groups) out.truncated_groups = s.truncated_groups;
      } else if (dims.length > 0) {
        out.breakdowns = Object.fromEntries(
          dims.map((d) => [d.name, protectDimension(privacy, d, bucketsOf(d))]),
        ) as CountResult['breakdowns'];
      }
      await questions?.record(viewer, input.query, measured);
      return out;
    },

    async lookup(viewer: Viewer, body: LookupBody) {
      const orgId = viewer.orgId;
      const catalogFields = await fields();
      const selected = validateLookupFields(catalogFields, body.fields);
      const { input, m, release } = await prepare(viewer, body);
      const limit = body.limit ?? 10;
      await charge(
        orgId,
        release.persons,
        [...m.columns, ...selected.map((f) => f.storage.column)],
        m.parquetPaths,
        conditionCount(input.query),
      );
      const eligible = await eligibleParts(catalogFields, input.query, release);
      const e =
        eligible.length === 0
          ? null
          : membershipSql(joinParts(eligible), { catalog: catalogFields, personsTable, paramOffset: m.params.length });
      const sql = maskedLookupSql({
        personsTable,
        totalWhere: m.where,
        eligibleWhere: e?.where ?? 'FALSE',
        fields: selected,
        limit,
        k: privacy.lookupK,
      });
      const rows = await withWarehouse(() => warehouse.query(sql, [...m.params, ...(e?.params ?? [])], bounded));
      const { records } = readLookup(rows, selected);
      const run = (q: string, params: unknown[]) => withWarehouse(() => warehouse.query(q, params, bounded));
      const measured = await privacy.measure(run, input.query, {
        catalog: catalogFields,
        personsTable,
        persons: release.persons,
        release: release.file,
      });
      await questions?.record(viewer, input.query, measured);
      return {
        total_matched: privacy.protectTotal({ question: privacy.question(input.query), trueCount: measured.total.n, set: measured.total }),
        rows: records,
        available_fields: catalogFields.filter((f) => !f.pii).map((f) => f.name),
        data_release: { major: release.major, minor: release.minor },
      };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
