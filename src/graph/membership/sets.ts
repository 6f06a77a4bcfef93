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
 * Shape: the scan reads every row any form selects (`WHERE f0 OR f1 ...`), projects each form's
 * predicate once as a boolean and aggregates with FILTER. A lone form is a plain count + bit_xor.
 * Result columns per row: `n<i>`, `h<i>` (UBIGINT, NULL for the empty set), `e<i>` for forms whose
 * effect is not monotone (the size of the symmetric difference with form 0), `m<i>`/`mh<i>` (members
 * also in an included matched segment) when `matched`; with `dims`, `g0` (0 on bucket rows) and `d0`;
 * with `breakdown`, `dimension` and `value` (NULL dimension: the total row).
 */
import { DISCOVERY_TABLE } from '../discovery-table.ts';
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
  /** One group_by expression over `p` (GROUPING SETS with the total). */
  dim?: string;
  /** The default breakdowns: the codes table decoding `breakdown_key` (graph/discovery-table.ts). */
  breakdown?: string;
}

export interface SetStatsSql {
  sql: string;
  params: FilterParam[];
  columns: string[];
  parquetPaths: string[];
}

function aggregates(forms: readonly SetForm[], matched: boolean): string[] {
  const out: string[] = [];
  forms.forEach((f, i) => {
    const w = forms.length === 1 ? '' : ` FILTER (WHERE __f${i})`;
    out.push(`count(*)${w} AS n${i}`, `bit_xor(__h)${w} AS h${i}`);
    if (f.symmetric) out.push(`count(*) FILTER (WHERE coalesce(__f0, FALSE) <> coalesce(__f${i}, FALSE)) AS e${i}`);
    if (matched) {
      const mw = forms.length === 1 ? '__m' : `__f${i} AND __m`;
      out.push(`count(*) FILTER (WHERE ${mw}) AS m${i}`, `bit_xor(__h) FILTER (WHERE ${mw}) AS mh${i}`);
    }
  });
  return out;
}

/** Sums of the per-key aggregates (breakdowns decode keys into buckets: counts add, hashes XOR). */
function reaggregates(forms: readonly SetForm[], matched: boolean, from: string): string[] {
  const out: string[] = [];
  forms.forEach((f, i) => {
    out.push(`coalesce(sum(${from}n${i}), 0)::BIGINT AS n${i}`, `bit_xor(${from}h${i}) AS h${i}`);
    if (f.symmetric) out.push(`coalesce(sum(${from}e${i}), 0)::BIGINT AS e${i}`);
    if (matched) out.push(`coalesce(sum(${from}m${i}), 0)::BIGINT AS m${i}`, `bit_xor(${from}mh${i}) AS mh${i}`);
  });
  return out;
}

export function setStatsSql(forms: readonly SetForm[], o: SetStatsOptions): SetStatsSql {
  if (forms.length === 0) throw new Error('setStatsSql needs at least one form');
  const personsTable = o.personsTable ?? `graph.${DISCOVERY_TABLE}`;
  const params: FilterParam[] = [];
  const columns = new Set<string>(['person_key']);
  const parquetPaths: string[] = [];
  const wheres: string[] = [];
  let matchedWhere: string | null = null;
  for (const f of forms) {
    const m = membershipSql(f.query, { catalog: o.catalog, personsTable, paramOffset: params.length });
    params.push(...m.params);
    m.columns.forEach((c) => columns.add(c));
    parquetPaths.push(...m.parquetPaths);
    wheres.push(m.where);
    // Matched members: of any form, the included matched segments are the same files.
    if (o.matched && m.matchedWhere && matchedWhere === null) matchedWhere = m.matchedWhere;
  }
  const matched = o.matched === true && matchedWhere !== null;
  const projected = [
    'hash(p.person_key) AS __h',
    ...(forms.length === 1 ? [] : wheres.map((w, i) => `(${w}) AS __f${i}`)),
    ...(matched ? [`(${matchedWhere}) AS __m`] : []),
  ];
  const where = wheres.length === 1 ? wheres[0]! : wheres.map((w) => `(${w})`).join(' OR ');
  let sql: string;
  if (o.breakdown) {
    sql = `WITH t AS (SELECT p.breakdown_key AS __k, ${projected.join(', ')} FROM ${personsTable} p WHERE ${where}),
      b AS (SELECT __k, ${aggregates(forms, matched).join(', ')} FROM t GROUP BY __k)
      SELECT NULL::VARCHAR AS dimension, NULL::VARCHAR AS value, ${reaggregates(forms, matched, '').join(', ')} FROM b
      UNION ALL
      SELECT c.dimension, c.value, ${reaggregates(forms, matched, 'b.').join(', ')}
      FROM b JOIN ${o.breakdown} c ON (b.__k // c.stride) % c.radix = c.code GROUP BY c.dimension, c.value`;
    columns.add('breakdown_key');
  } else if (o.dim !== undefined) {
    sql = `SELECT GROUPING(d0) AS g0, d0, ${aggregates(forms, matched).join(', ')}
      FROM (SELECT ${o.dim} AS d0, ${projected.join(', ')} FROM ${personsTable} p WHERE ${where}) t GROUP BY GROUPING SETS ((), (d0))`;
  } else {
    sql = `SELECT ${aggregates(forms, matched).join(', ')} FROM (SELECT ${projected.join(', ')} FROM ${personsTable} p WHERE ${where}) t`;
  }
  return { sql, params, columns: [...columns], parquetPaths };
}
