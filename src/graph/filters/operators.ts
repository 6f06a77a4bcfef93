/**
 * Which operators make sense for which field type. The catalog lists the operators it allows per
 * field; the effective set is the intersection, so a catalog mistake (LIKE on an INTEGER) is
 * rejected rather than compiled into SQL that errors or silently casts.
 */
import type { CatalogField, FieldType, FilterOperator } from '../field-types.ts';

const ORDERED: FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'BETWEEN', 'IS NULL', 'IS NOT NULL'];

const BY_TYPE: Record<FieldType, ReadonlySet<FilterOperator>> = {
  STRING: new Set([...ORDERED, 'LIKE']),
  INTEGER: new Set(ORDERED),
  NUMBER: new Set(ORDERED),
  DATE: new Set(ORDERED),
  BOOLEAN: new Set(['=', '!=', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL']),
  'ARRAY<STRING>': new Set(['ARRAY_CONTAINS', 'ARRAY_CONTAINS_ANY', 'IS NULL', 'IS NOT NULL']),
};

export function allowedOperators(field: CatalogField): FilterOperator[] {
  if (!field.filterable) return [];
  return field.operators.filter((op) => BY_TYPE[field.type].has(op));
}

/** Operators whose value is a list. */
export const LIST_OPS: ReadonlySet<FilterOperator> = new Set<FilterOperator>(['IN', 'NOT IN', 'ARRAY_CONTAINS_ANY']);
export const NULL_OPS: ReadonlySet<FilterOperator> = new Set<FilterOperator>(['IS NULL', 'IS NOT NULL']);
/** Operators where `text_comparison: case_insensitive` is defined (spec §2), plus the no-op null tests. */
export const CASE_INSENSITIVE_OPS: ReadonlySet<FilterOperator> = new Set<FilterOperator>([
  '=',
  '!=',
  'IN',
  'NOT IN',
  'LIKE',
  'ARRAY_CONTAINS',
  'ARRAY_CONTAINS_ANY',
  'IS NULL',
  'IS NOT NULL',
]);
