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
import { maskedSampleSql, type CatalogField, type Generalization } from '../../graph/index.ts';

/** Band widths of numeric fields that identify a person when exact. */
export const BANDS: Readonly<Record<string, number>> = { age: 10, home_value: 100_000, household_income: 25_000, length_of_residence: 5 };
const ZIPS = new Set(['zip5', 'work_zip5']);

/** The masking rule of one returned value, as data for the warehouse's masked sample: generalized where it would identify. */
export function shownAs(field: CatalogField): Generalization {
  const column = field.storage.column;
  const width = BANDS[column];
  if (width !== undefined) return { kind: 'band', width };
  if (ZIPS.has(column)) return { kind: 'prefix', keep: 3, pad: 'xx' };
  if (field.type === 'DATE') return { kind: 'year' };
  return { kind: 'exact' };
}

/** How a field's value is shown in a lookup row (for the response description). */
export function generalizationOf(field: CatalogField): string | null {
  const g = shownAs(field);
  return g.kind === 'band' ? `band of ${g.width}` : g.kind === 'prefix' ? `${g.keep}-digit prefix` : g.kind === 'year' ? 'year' : null;
}

export interface MaskedLookup {
  personsTable: string;
  /** Predicate of the whole filter (its total). */
  totalWhere: string;
  /** Predicate of the eligible parts (rows come only from here); `FALSE` when none is. */
  eligibleWhere: string;
  fields: readonly CatalogField[];
  limit: number;
  k: number;
}

/** Total and masked sample in one statement (graph `maskedSampleSql`), each field shown by this layer's rule. */
export function maskedLookupSql(o: MaskedLookup): string {
  return maskedSampleSql({ ...o, fields: o.fields.map((field) => ({ field, shown: shownAs(field) })) });
}
