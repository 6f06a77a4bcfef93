/**
 * MembershipQuery (types.ts) -> DuckDB SQL over the current release.
 *
 *   const m = membershipSql(query, { catalog, paramOffset: 0 });
 *   await warehouse.query(`SELECT count(*) FROM graph.discovery_persons p WHERE ${m.where}`, m.params);
 *   await warehouse.query(m.select, m.params);            // SELECT person_key ... (materialize, join)
 *
 * Shape, chosen for speed on one scan of the discovery table (graph/discovery-table.ts):
 * - a filter segment without record_limit is its compiled predicate, inline (no join);
 * - a record-limited filter segment is `p.person_key IN (top-N subquery)`: the stable subset is the N
 *   matching persons with the smallest hash(person_key, subsetSeed), so it changes only when the seed
 *   (segment version) changes and is applied per segment, before any set logic;
 * - a materialized segment is `p.person_key IN (SELECT person_key FROM read_parquet(...))`, which DuckDB
 *   runs as a hash semi-join; a segment with nothing materialized yet is the empty set (FALSE);
 * - union = OR, intersection = AND, exclusions = AND NOT.
 * Every membership predicate is wrapped in coalesce(..., FALSE) so SQL NULLs (a NULL column under a
 * comparison) never turn an exclusion `NOT x` into NULL and silently drop a row.
 */
import { DISCOVERY_TABLE } from '../discovery-table.ts';
import { compileFilterGroups, type FilterCatalog, type FilterGroup, type FilterParam } from '../filters/index.ts';
import type { Composition, MembershipQuery, SegmentMembership } from './types.ts';

export interface MembershipSqlOptions {
  catalog: FilterCatalog;
  /** Parameters the caller already binds; ours are `$${paramOffset + 1}`... */
  paramOffset?: number;
  /** Qualified table scanned; default the discovery table of the release attached as `graph`. */
  personsTable?: string;
  /** Alias of the outer persons scan the predicate refers to; default `p`. */
  alias?: string;
}

export interface MembershipSql {
  /** Boolean expression over `${personsTable} ${alias}`. */
  where: string;
  /** `SELECT alias.person_key FROM personsTable alias WHERE where`: the member set as a subquery. */
  select: string;
  params: FilterParam[];
  /** Columns of the persons table the predicate reads (for the compute-budget estimate). */
  columns: string[];
  /** Parquet files the predicate reads (materialized segments). */
  parquetPaths: string[];
  /** Predicate for "member of a matched segment", when the query includes one; null otherwise. */
  matchedWhere: string | null;
}

/** SQL string literal (paths are ours, never client input, but quote them properly anyway). */
function lit(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

class Builder {
  readonly params: FilterParam[] = [];
  readonly columns = new Set<string>(['person_key']);
  readonly parquetPaths: string[] = [];
  private subqueries = 0;

  constructor(private readonly o: Required<Omit<MembershipSqlOptions, 'catalog'>> & { catalog: FilterCatalog }) {}

  private bind(v: FilterParam): string {
    this.params.push(v);
    return `$${this.o.paramOffset + this.params.length}`;
  }

  filters(groups: readonly FilterGroup[], alias: string): string {
    const compiled = compileFilterGroups(groups, this.o.catalog, { tableAlias: alias, paramOffset: this.o.paramOffset + this.params.length });
    this.params.push(...compiled.params);
    for (const g of groups) {
      for (const c of g.filters) {
        const field = this.o.catalog.find((f) => f.name === c.field || f.aliases.includes(c.field));
        if (field) this.columns.add(field.storage.column);
      }
    }
    return compiled.sql;
  }

  membership(m: SegmentMembership): string {
    const key = `${this.o.alias}.person_key`;
    if (m.kind === 'members') {
      if (!m.parquetPath) return 'FALSE';
      this.parquetPaths.push(m.parquetPath);
      return `${key} IN (SELECT person_key FROM read_parquet(${lit(m.parquetPath)}))`;
    }
    if (m.recordLimit === null) return `coalesce(${this.filters(m.groups, this.o.alias)}, FALSE)`;
    // A separate alias per subquery keeps the inner predicate from binding to the outer scan.
    const inner = `s${++this.subqueries}`;
    const predicate = this.filters(m.groups, inner);
    const seed = this.bind(m.subsetSeed);
    const limit = this.bind(BigInt(Math.max(0, Math.trunc(m.recordLimit))));
    return `${key} IN (SELECT ${inner}.person_key FROM ${this.o.personsTable} ${inner} WHERE coalesce(${predicate}, FALSE)`
      + ` ORDER BY hash(${inner}.person_key, ${seed}::VARCHAR), ${inner}.person_key LIMIT ${limit})`;
  }

  composition(c: Composition): string {
    const includes = c.include.map((m) => this.membership(m));
    let sql: string;
    if (includes.length === 0) sql = 'FALSE';
    else if (includes.length === 1) sql = includes[0]!;
    else sql = `(${includes.join(c.setLogic === 'union' ? ' OR ' : ' AND ')})`;
    const excludes = c.exclude.map((m) => this.membership(m));
    if (excludes.length > 0) sql = `(${sql} AND NOT (${excludes.join(' OR ')}))`;
    return sql;
  }
}

export function membershipSql(query: MembershipQuery, opts: MembershipSqlOptions): MembershipSql {
  const o = {
    catalog: opts.catalog,
    paramOffset: opts.paramOffset ?? 0,
    personsTable: opts.personsTable ?? `graph.${DISCOVERY_TABLE}`,
    alias: opts.alias ?? 'p',
  };
  if (!Number.isSafeInteger(o.paramOffset) || o.paramOffset < 0) throw new Error(`paramOffset must be a non-negative integer`);
  const b = new Builder(o);
  let where: string;
  let matchedWhere: string | null = null;
  if (query.kind === 'filters') {
    where = `coalesce(${b.filters(query.groups, o.alias)}, FALSE)`;
  } else {
    where = b.composition(query.composition);
    const matched = query.composition.include.filter((m) => m.kind === 'members' && m.subtype === 'matched');
    // Built after `where` so its parameters follow; the parquet semi-joins are cheap to repeat.
    if (matched.length > 0) matchedWhere = `(${matched.map((m) => b.membership(m)).join(' OR ')})`;
  }
  return {
    where,
    select: `SELECT ${o.alias}.person_key FROM ${o.personsTable} ${o.alias} WHERE ${where}`,
    params: b.params,
    columns: [...b.columns],
    parquetPaths: b.parquetPaths,
    matchedWhere,
  };
}

/** Whether a composition is one filter segment with nothing excluded (discovery shows breakdowns for it). */
export function isSingleFilterSegment(c: Composition): boolean {
  return c.include.length === 1 && c.include[0]!.kind === 'filter' && c.exclude.length === 0;
}
