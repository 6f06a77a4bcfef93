/**
 * MembershipQuery (types.ts) -> DuckDB SQL over the current release.
 *
 *   const m = membershipSql(query, { catalog, paramOffset: 0 });
 *   await warehouse.query(m.count, m.params);             // n (members), m (matched members)
 *   await warehouse.query(`SELECT ... FROM graph.discovery_persons p WHERE ${m.where}`, m.params);
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
 * A predicate may be NULL for a row (a NULL column under a comparison); WHERE and FILTER treat that as
 * false, which is right for inclusion. Exclusion is `(x) IS NOT TRUE`, never `NOT x`, so a NULL never
 * drops a row it should keep. Predicates are NOT wrapped in coalesce(x, FALSE): that hides the
 * conjunctions from DuckDB's filter pushdown (at 10M persons a two-group OR took 104 ms instead of 22).
 * So `where` is for WHERE / FILTER clauses only, not for negating or projecting as a value.
 */
import { DUCKDB } from '../dialect.ts';
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
  /** `SELECT n, m`: the member count and the matched-member count (NULL without a matched segment). */
  count: string;
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
    const compiled = compileFilterGroups(groups, this.o.catalog, {
      tableAlias: alias,
      paramOffset: this.o.paramOffset + this.params.length,
    });
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
      return `${key} IN (SELECT person_key FROM ${DUCKDB.parquet(m.parquetPath)})`;
    }
    if (m.recordLimit === null) return this.filters(m.groups, this.o.alias);
    // A separate alias per subquery keeps the inner predicate from binding to the outer scan.
    const inner = `s${++this.subqueries}`;
    const predicate = this.filters(m.groups, inner);
    const seed = this.bind(m.subsetSeed);
    const limit = this.bind(BigInt(Math.max(0, Math.trunc(m.recordLimit))));
    return (
      `${key} IN (SELECT ${inner}.person_key FROM ${this.o.personsTable} ${inner} WHERE ${predicate}` +
      ` ORDER BY hash(${inner}.person_key, ${seed}::VARCHAR), ${inner}.person_key LIMIT ${limit})`
    );
  }

  /** The composition's predicate, and for a union of several segments its disjoint terms (see countSql). */
  composition(c: Composition): { where: string; unionTerms: string[] | null } {
    const includes = c.include.map((m) => this.membership(m));
    const excludes = c.exclude.map((m) => this.membership(m));
    const keep = (sql: string) => (excludes.length > 0 ? `(${sql} AND (${excludes.join(' OR ')}) IS NOT TRUE)` : sql);
    let sql: string;
    if (includes.length === 0) sql = 'FALSE';
    else if (includes.length === 1) sql = includes[0]!;
    else sql = `(${includes.join(c.setLogic === 'union' ? ' OR ' : ' AND ')})`;
    const unionTerms =
      c.setLogic === 'union' && includes.length > 1
        ? includes.map((inc, i) => keep(`(${[inc, ...includes.slice(0, i).map((prev) => `(${prev}) IS NOT TRUE`)].join(' AND ')})`))
        : null;
    return { where: keep(sql), unionTerms };
  }
}

/**
 * One statement returning `n` (members) and `m` (members in a matched segment, or NULL).
 *
 * A union of segments is counted as a sum of disjoint terms, |S1 ∪ S2 ∪ S3| = |S1| + |S2 \ S1| +
 * |S3 \ (S1 ∪ S2)| (each minus the exclusions): every term leads with one segment's own conjunctions,
 * which DuckDB pushes into the scan, and evaluates the rest only on the rows that pass. An OR across
 * segments on different columns defeats that pushdown and materializes every column of every row: at
 * 10M persons a three-segment union minus one took 137 ms as one OR and 75 ms as three terms.
 */
function countSql(table: string, alias: string, terms: readonly string[], matchedWhere: string | null): string {
  const m = matchedWhere ? `count(*) FILTER (WHERE ${matchedWhere})` : 'NULL::BIGINT';
  const one = (where: string) => `SELECT count(*) AS n, ${m} AS m FROM ${table} ${alias} WHERE ${where}`;
  if (terms.length === 1) return one(terms[0]!);
  return `SELECT sum(n)::BIGINT AS n, sum(m)::BIGINT AS m FROM (${terms.map(one).join(' UNION ALL ')})`;
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
  let unionTerms: string[] | null = null;
  let matchedWhere: string | null = null;
  if (query.kind === 'filters') {
    where = b.filters(query.groups, o.alias);
  } else {
    ({ where, unionTerms } = b.composition(query.composition));
    const matched = query.composition.include.filter((m) => m.kind === 'members' && m.subtype === 'matched');
    // Built after `where` so its parameters follow; the parquet semi-joins are cheap to repeat.
    if (matched.length > 0) matchedWhere = `(${matched.map((m) => b.membership(m)).join(' OR ')})`;
  }
  return {
    where,
    count: countSql(o.personsTable, o.alias, unionTerms ?? [where], matchedWhere),
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
