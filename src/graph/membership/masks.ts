/**
 * Condition masks of raw filter questions, for low-effect detection at the cost of about one count
 * (src/modules/privacy/sets.ts, decision 052 "cost").
 *
 * One statement of two parts, both per bucket of the grouping:
 * - part 0, the question itself (`question`): `n` and the set hash `h` (`bit_xor(hash(person_key))`, as
 *   in sets.ts) of its members, read with the filter pushdown of its own predicate;
 * - part 1, the rows satisfying any of the question's distinct conditions, each with `__mask`, the bit
 *   set of the conditions it satisfies: `n` and `h` per (bucket, mask). Any OR of ANDs of those
 *   conditions (the question without some conditions or branches) is a union of masks, so its count and
 *   hash per bucket are sums and XORs of these rows. With `samplePercent` below 100 the rows are a
 *   sample of the table (TABLESAMPLE system): the counts are then lower bounds of the true counts, which
 *   is all the caller asks of them (an effect of at least a few persons in the sample is at least as
 *   large in the table), and part 0 gives the question's exact figures.
 * Result columns per row: `__part`, `__mask` (0 in part 0), `n`, `h`; with `dim`: `g0` (0 on bucket
 * rows), `d0`; with `breakdown`: `dimension`, `value` (NULL dimension: the total row).
 */
import { BREAKDOWN_CODES_TABLE, DISCOVERY_TABLE } from '../discovery-table.ts';
import { quoteIdent } from '../filters/text.ts';
import { DUCKDB } from '../dialect.ts';
import type { FilterCatalog, FilterCondition, FilterParam } from '../filters/index.ts';
import { membershipSql } from './sql.ts';
import type { MembershipQuery } from './types.ts';

/** Most distinct conditions a mask holds (bits of a BIGINT). */
export const MAX_MASK_CONDITIONS = 62;

export interface MaskStatsOptions {
  catalog: FilterCatalog;
  personsTable?: string;
  /** The question (part 0); null: part 1 is exact (samplePercent 100) and part 0 is not needed. */
  question: MembershipQuery | null;
  /** The distinct conditions, bit i of the mask for conditions[i]. */
  conditions: readonly FilterCondition[];
  /** Percent of the table part 1 reads (100: all of it). */
  samplePercent: number;
  /** As in sets.ts. */
  dimColumn?: string;
  breakdown?: boolean;
}

export interface MaskStatsSql {
  sql: string;
  params: FilterParam[];
  columns: string[];
}

export function maskStatsSql(o: MaskStatsOptions): MaskStatsSql {
  if (o.conditions.length === 0 || o.conditions.length > MAX_MASK_CONDITIONS)
    throw new Error(`maskStatsSql takes 1-${MAX_MASK_CONDITIONS} conditions`);
  const table = o.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  const params: FilterParam[] = [];
  const columns = new Set<string>();
  const where = (q: MembershipQuery) => {
    const m = membershipSql(q, { catalog: o.catalog, personsTable: table, paramOffset: params.length });
    params.push(...m.params);
    m.columns.forEach((c) => columns.add(c));
    return m.where;
  };
  const group = o.breakdown ? ', p.breakdown_key AS __k' : o.dimColumn !== undefined ? `, p.${quoteIdent(o.dimColumn)} AS d0` : '';
  const terms: string[] = [];
  if (o.question)
    terms.push(`SELECT 0 AS __part, 0::BIGINT AS __mask, ${DUCKDB.personHash()} AS __h${group} FROM ${table} p WHERE ${where(o.question)}`);
  const tests = o.conditions.map((c) => where({ kind: 'filters', groups: [{ id: 'c', combinator: 'AND', filters: [c] }] }));
  const mask = tests.map((t, i) => `CASE WHEN ${t} THEN ${2n ** BigInt(i)} ELSE 0 END`).join(' + ');
  // The tests again in WHERE: the same parameters, so DuckDB can prune by each condition's zone maps.
  terms.push(
    `SELECT 1 AS __part, (${mask})::BIGINT AS __mask, ${DUCKDB.personHash()} AS __h${group} FROM ${DUCKDB.sampled(table, 'p', o.samplePercent)} WHERE ${tests.join(' OR ')}`,
  );
  const t = terms.join('\n      UNION ALL ');
  const aggregates = 'count(*) AS n, bit_xor(__h) AS h';
  let sql: string;
  if (o.breakdown) {
    columns.add('breakdown_key');
    sql = `WITH t AS (${t}),
      b AS (SELECT __part, __mask, __k, ${aggregates} FROM t GROUP BY __part, __mask, __k)
      SELECT __part, __mask, NULL::VARCHAR AS dimension, NULL::VARCHAR AS value, sum(n)::BIGINT AS n, bit_xor(h) AS h FROM b GROUP BY __part, __mask
      UNION ALL
      SELECT b.__part, b.__mask, c.dimension, c.value, sum(b.n)::BIGINT AS n, bit_xor(b.h) AS h
      FROM b JOIN graph.${BREAKDOWN_CODES_TABLE} c ON (b.__k // c.stride) % c.radix = c.code GROUP BY b.__part, b.__mask, c.dimension, c.value`;
  } else if (o.dimColumn !== undefined) {
    // The total re-aggregated from the buckets (every row is in one), as in sets.ts.
    sql = `WITH b AS (SELECT __part, __mask, d0, ${aggregates} FROM (${t}) t GROUP BY __part, __mask, d0)
      SELECT __part, __mask, 1 AS g0, NULL AS d0, sum(n)::BIGINT AS n, bit_xor(h) AS h FROM b GROUP BY __part, __mask
      UNION ALL
      SELECT __part, __mask, 0 AS g0, d0, n, h FROM b`;
  } else {
    sql = `SELECT __part, __mask, ${aggregates} FROM (${t}) t GROUP BY __part, __mask`;
  }
  return { sql, params, columns: [...columns] };
}
