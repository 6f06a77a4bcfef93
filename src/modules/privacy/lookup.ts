/**
 * Masked lookup rows (spec 4.2 lookup; docs/decisions/015-privacy-threat-model.md):
 * - generalized values: numbers that identify (age, home value, income, years at the residence) come
 *   in bands, ZIP codes as their 3-digit prefix, dates as the year;
 * - rows only from the eligible parts of the filter (each OR branch that meets the floor on its own),
 *   so one person's exact conditions ORed with a large state contribute no row;
 * - k-anonymity: a row is returned only when its returned combination of (generalized) values is
 *   shared by at least k persons of the eligible set.
 * The total comes from the whole filter (the caller protects it); total and sample are one statement.
 */
import type { CatalogField } from '../../graph/index.ts';
import { quoteIdent } from '../../graph/index.ts';

/** Band widths of numeric fields that identify a person when exact. */
export const BANDS: Readonly<Record<string, number>> = { age: 10, home_value: 100_000, household_income: 25_000, length_of_residence: 5 };
const ZIPS = new Set(['zip5', 'work_zip5']);

/** The SQL of one returned value, generalized where it would identify. */
export function generalizedExpr(field: CatalogField, alias = 'p'): string {
  const column = field.storage.column;
  const x = `${alias}.${quoteIdent(column)}`;
  const width = BANDS[column];
  if (width !== undefined) {
    const lo = `(${x} // ${width} * ${width})`;
    return `CASE WHEN ${x} IS NULL THEN NULL ELSE ${lo}::VARCHAR || '-' || (${lo} + ${width - 1})::VARCHAR END`;
  }
  if (ZIPS.has(column)) return `CASE WHEN ${x} IS NULL THEN NULL ELSE left(${x}, 3) || 'xx' END`;
  if (field.type === 'DATE') return `year(${x})::VARCHAR`;
  return x;
}

/** How a field's value is shown in a lookup row (for the response description). */
export function generalizationOf(field: CatalogField): string | null {
  const column = field.storage.column;
  if (BANDS[column] !== undefined) return `band of ${BANDS[column]}`;
  if (ZIPS.has(column)) return '3-digit prefix';
  if (field.type === 'DATE') return 'year';
  return null;
}

export interface MaskedLookupSql {
  personsTable: string;
  /** Predicate of the whole filter (its total). */
  totalWhere: string;
  /** Predicate of the eligible parts (rows come only from here); `FALSE` when none is. */
  eligibleWhere: string;
  fields: readonly CatalogField[];
  limit: number;
  k: number;
}

/**
 * Total and masked sample in one statement: `__total`, then `c0..cn` and `__row` (NULL on the one row of an empty sample) of at most `limit` rows in a
 * stable pseudo-random order, each row's combination shared by >= k eligible persons.
 */
export function maskedLookupSql(o: MaskedLookupSql): string {
  const cols = o.fields.map((f, i) => `${generalizedExpr(f)} AS c${i}`);
  const names = o.fields.map((_, i) => `c${i}`);
  return `WITH t AS (SELECT count(*) AS n FROM ${o.personsTable} p WHERE ${o.totalWhere}),
    g AS (SELECT ${[...cols, 'hash(p.person_key) AS __h', 'p.person_key AS __key'].join(', ')} FROM ${o.personsTable} p WHERE ${o.eligibleWhere}),
    w AS (SELECT *, count(*) OVER (PARTITION BY ${names.join(', ')}) AS __k FROM g),
    s AS (SELECT ${names.join(', ')}, TRUE AS __row FROM w WHERE __k >= ${Math.trunc(o.k)} ORDER BY __h, __key LIMIT ${Math.trunc(o.limit)})
    SELECT t.n AS __total, s.* FROM t LEFT JOIN s ON TRUE`;
}
