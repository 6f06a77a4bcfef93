/**
 * Set statistics of a question and its variants ("forms") in ONE scan: for each form its person count
 * and its set hash, `bit_xor(hash(person_key))` over its members, optionally per bucket of a grouping.
 *
 * The privacy layer (src/modules/privacy/sets.ts) seeds noise and thresholds by the set hash, so what a
 * customer sees depends on which people a question selects, not on how it is written, and compares
 * each form (the question with one condition, OR branch or segment removed) against the question to
 * find conditions of low effect. XOR makes the hash of a disjoint union (a bucket `other`, the sum of
 * breakdown keys) and of a symmetric difference (what one condition changes) the XOR of the parts.
 *
 * Shape: one scan per form, joined by UNION ALL and aggregated by form (`__form`, the form's index).
 * Result columns per row: `n`, `h` (UBIGINT, NULL for the empty set), `e` (for forms whose effect is
 * not monotone, the size of the symmetric difference with form 0; else 0), `m`/`mh` (members also in
 * an included matched segment) when `matched`; with `dim`, `g0` (0 on bucket rows) and `d0`; with
 * `breakdown`, `dimension` and `value` (NULL dimension: the total row). A form selecting nobody may
 * have no total row.
 */
import { BREAKDOWN_CODES_TABLE, DISCOVERY_TABLE } from '../discovery-table.ts';
import { quoteIdent } from '../filters/text.ts';
import { DUCKDB } from '../dialect.ts';
import type { FilterCatalog, FilterParam } from '../filters/index.ts';
import { membershipSql } from './sql.ts';
import type { MembershipQuery } from './types.ts';

export interface SetForm {
  query: MembershipQuery;
  /** Its members are not a superset or subset of form 0's (a change inside a capped segment): count the symmetric difference. */
  symmetric?: boolean;
}

export interface SetStatsOptions {
  catalog: FilterCatalog;
  personsTable?: string;
  /** Also count members of included matched segments (per form). */
  matched?: boolean;
  /** group_by one column of the scanned table (the total is re-aggregated from its buckets). */
  dimColumn?: string;
  /** The default breakdowns, decoded from `breakdown_key` by the release's codes table (graph/discovery-table.ts). */
  breakdown?: boolean;
}

export interface SetStatsSql {
  sql: string;
  params: FilterParam[];
  columns: string[];
  parquetPaths: string[];
}

// Without a symmetric form every scanned row is in its form: plain aggregates (FILTER clauses over a
// constant still cost a pass each: a one-form group_by of 3M rows at 10M persons took 63 ms, 29 without).
const AGGREGATES = (matched: boolean, symmetric: boolean) =>
  symmetric
    ? [
        'count(*) FILTER (WHERE __in) AS n',
        'bit_xor(__h) FILTER (WHERE __in) AS h',
        'count(*) FILTER (WHERE __e) AS e',
        ...(matched ? ['count(*) FILTER (WHERE __in AND __m) AS m', 'bit_xor(__h) FILTER (WHERE __in AND __m) AS mh'] : []),
      ]
    : [
        'count(*) AS n',
        'bit_xor(__h) AS h',
        '0::BIGINT AS e',
        ...(matched ? ['count(*) FILTER (WHERE __m) AS m', 'bit_xor(__h) FILTER (WHERE __m) AS mh'] : []),
      ];
const REAGGREGATES = (matched: boolean, from: string) => [
  `coalesce(sum(${from}n), 0)::BIGINT AS n`,
  `bit_xor(${from}h) AS h`,
  `coalesce(sum(${from}e), 0)::BIGINT AS e`,
  ...(matched ? [`coalesce(sum(${from}m), 0)::BIGINT AS m`, `bit_xor(${from}mh) AS mh`] : []),
];

export function setStatsSql(forms: readonly SetForm[], o: SetStatsOptions): SetStatsSql {
  if (forms.length === 0) throw new Error('setStatsSql needs at least one form');
  const personsTable = o.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  const params: FilterParam[] = [];
  const columns = new Set<string>();
  const parquetPaths: string[] = [];
  const predicate = (q: MembershipQuery) => {
    const m = membershipSql(q, { catalog: o.catalog, personsTable, paramOffset: params.length });
    params.push(...m.params);
    m.columns.forEach((c) => columns.add(c));
    parquetPaths.push(...m.parquetPaths);
    return m;
  };
  const matchedOf = forms.map(() => null as string | null);
  // One scan per form (UNION ALL): each keeps DuckDB's filter pushdown for its own predicate, which an
  // OR of all forms in one WHERE defeats (at 1M persons 100 ms instead of 225 for seven forms).
  const symmetric = forms.some((f) => f.symmetric === true);
  // One form: no form key to group by (a constant key still makes a two-key aggregate: a one-form
  // group_by of 4M rows at 10M persons took 49 ms with it, 36 without).
  const byForm = forms.length > 1;
  const form = byForm ? '__form' : '0 AS __form';
  const terms = forms.map((f, i) => {
    const m = predicate(f.query);
    matchedOf[i] = m.matchedWhere;
    const group = o.breakdown ? 'p.breakdown_key AS __k' : o.dimColumn !== undefined ? `p.${quoteIdent(o.dimColumn)} AS d0` : null;
    let inForm = 'TRUE';
    let differs = 'FALSE';
    let where = m.where;
    if (f.symmetric) {
      // Its effect is the symmetric difference with form 0: read the rows of both.
      const base = predicate(forms[0]!.query).where;
      inForm = `coalesce((${m.where}), FALSE)`;
      differs = `coalesce((${base}), FALSE) <> ${inForm}`;
      where = `(${m.where}) OR (${base})`;
    }
    const matched = o.matched && m.matchedWhere ? `coalesce((${m.matchedWhere}), FALSE)` : 'FALSE';
    const cols = [
      ...(byForm ? [`${i} AS __form`] : []),
      `${DUCKDB.personHash()} AS __h`,
      ...(symmetric ? [`${inForm} AS __in`, `${differs} AS __e`] : []),
      ...(o.matched ? [`${matched} AS __m`] : []),
      ...(group ? [group] : []),
    ];
    return `SELECT ${cols.join(', ')} FROM ${personsTable} p WHERE ${where}`;
  });
  const matched = o.matched === true && matchedOf.some((x) => x !== null);
  const t = terms.join('\n      UNION ALL ');
  const keys = (...k: string[]) => [...(byForm ? ['__form'] : []), ...k].join(', ');
  const aggregates = AGGREGATES(matched, symmetric).join(', ');
  let sql: string;
  if (o.breakdown) {
    sql = `WITH t AS (${t}),
      b AS (SELECT ${keys('__k')}, ${aggregates} FROM t GROUP BY ${keys('__k')})
      SELECT ${form}, NULL::VARCHAR AS dimension, NULL::VARCHAR AS value, ${REAGGREGATES(matched, '').join(', ')} FROM b${byForm ? ' GROUP BY __form' : ''}
      UNION ALL
      SELECT ${byForm ? 'b.__form' : '0 AS __form'}, c.dimension, c.value, ${REAGGREGATES(matched, 'b.').join(', ')}
      FROM b JOIN graph.${BREAKDOWN_CODES_TABLE} c ON (b.__k // c.stride) % c.radix = c.code GROUP BY ${byForm ? 'b.__form, ' : ''}c.dimension, c.value`;
    columns.add('breakdown_key');
  } else if (o.dimColumn !== undefined) {
    // Every row is in one bucket (NULL included): the total is re-aggregated from the buckets.
    sql = `WITH b AS (SELECT ${keys('d0')}, ${aggregates} FROM (${t}) t GROUP BY ${keys('d0')})
      SELECT ${form}, 1 AS g0, NULL AS d0, ${REAGGREGATES(matched, '').join(', ')} FROM b${byForm ? ' GROUP BY __form' : ''}
      UNION ALL
      SELECT ${form}, 0 AS g0, d0, n, h, e${matched ? ', m, mh' : ''} FROM b`;
  } else {
    sql = `SELECT ${form}, ${aggregates} FROM (${t}) t${byForm ? ' GROUP BY __form' : ''}`;
  }
  return { sql, params, columns: [...columns], parquetPaths };
}
