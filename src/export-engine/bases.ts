/**
 * The member bases of an export (decision 051; `MemberBases` in types.ts): one warehouse table of the
 * gated members, `(person_key, mask, lvl)`, built once per export and joined to every row as `d`.
 *   mask: a bit per basis any of the member's rows earned (bit order: `basisNames`); 0 = no known basis;
 *   lvl:  the best level among them, issuing the member's id; `A` without one (an A id refreshes nothing).
 * A field with `matchBases` is NULL on a gated row none of whose bases allows it; rows without a `d`
 * (members the service selected) are not gated.
 */
import { gatedColumn, sqlLiteral, type OutputColumn } from './columns.ts';
import type { ExportField, MemberBases } from './types.ts';

/** Issuing levels, most telling first (person-id.ts): a member matched at I by one row and A by another gets an I id. */
const LEVEL_ORDER = ['I', 'H', 'D', 'S', 'A'] as const;

/** The bases the fields name, in bit order. */
export function basisNames(fields: readonly ExportField[]): string[] {
  return [...new Set(fields.flatMap((f) => f.matchBases ?? []))].sort();
}

const maskOf = (bases: readonly string[], names: readonly string[]) =>
  names.reduce((m, name, bit) => (bases.includes(name) ? m | (1 << bit) : m), 0);

/** `column` gated by the member's bases (joined as `d`), or as it is when the field has no `matchBases`. */
export function basesGatedColumn(column: OutputColumn, f: ExportField, names: readonly string[]): OutputColumn {
  if (!f.matchBases) return column;
  return gatedColumn(column, `d.person_key IS NULL OR (d.mask & ${maskOf(f.matchBases, names)}) <> 0`);
}

/**
 * `CREATE TABLE table AS ...`: the gated members among `keysTable`'s, with their mask and id level.
 * Its parameters are `selected`'s (its SQL is the only one binding any).
 */
export function basesTableSql(
  table: string,
  keysTable: string,
  bases: MemberBases,
  names: readonly string[],
): { sql: string; params: unknown[] } {
  const text = (column: string) => `CAST("${column.replace(/"/g, '""')}" AS VARCHAR)`;
  const rows = [
    ...bases.levels.map(
      (l) => `SELECT CAST(person_key AS BIGINT) AS person_key, ${text(l.levelColumn)} AS lvl,
        CASE WHEN ${text(l.typeColumn)} = 'person_id' THEN 'refresh' ELSE ${text(l.levelColumn)} END AS basis
      FROM read_parquet(${sqlLiteral(l.path)}) WHERE person_key IS NOT NULL`,
    ),
    // Every list member, with no basis: one without a row in a levels file ends with mask 0 (fail closed).
    ...bases.members.map(
      (path) =>
        `SELECT CAST(person_key AS BIGINT) AS person_key, NULL::VARCHAR AS lvl, NULL::VARCHAR AS basis FROM read_parquet(${sqlLiteral(path)})`,
    ),
  ];
  if (rows.length === 0)
    return { sql: `CREATE TABLE ${table} AS SELECT NULL::BIGINT AS person_key, 0 AS mask, NULL::VARCHAR AS lvl WHERE false`, params: [] };
  const bit = names.length ? `CASE basis ${names.map((n, i) => `WHEN ${sqlLiteral(n)} THEN ${1 << i}`).join(' ')} ELSE 0 END` : '0';
  const rank = `CASE lvl ${LEVEL_ORDER.map((l, i) => `WHEN '${l}' THEN ${i}`).join(' ')} END`;
  const level = `CASE min(${rank}) ${LEVEL_ORDER.map((l, i) => `WHEN ${i} THEN '${l}'`).join(' ')} ELSE 'A' END`;
  const selected = bases.selected
    ? `AND person_key NOT IN (SELECT CAST(person_key AS BIGINT) FROM (${bases.selected.sql}) s WHERE person_key IS NOT NULL)`
    : '';
  return {
    sql: `CREATE TABLE ${table} AS WITH b AS (${rows.join(' UNION ALL ')})
      SELECT person_key, CAST(bit_or(${bit}) AS INTEGER) AS mask, ${level} AS lvl FROM b
      WHERE person_key IN (SELECT person_key FROM ${keysTable}) ${selected}
      GROUP BY person_key`,
    params: bases.selected?.params ?? [],
  };
}
