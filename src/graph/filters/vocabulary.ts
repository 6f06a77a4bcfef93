/**
 * Matching of an input string against a closed vocabulary (enum values, bitmask bits). Used by the
 * validator to report INVALID_ENUM_VALUE / AMBIGUOUS_ENUM_VALUE and by the compiler to pick bits,
 * so both always agree on what an input means.
 */
import type { CatalogField, FilterOperator } from '../field-types.ts';
import { fold, trimWs } from './text.ts';

export interface MatchOptions {
  caseInsensitive: boolean;
  trim: boolean;
}

/** The vocabulary entries an input selects; more than one only when case folding merges them. */
export function matchVocabulary(input: string, vocab: readonly string[], opts: MatchOptions): string[] {
  const norm = (s: string) => {
    const t = opts.trim ? trimWs(s) : s;
    return opts.caseInsensitive ? fold(t) : t;
  };
  const needle = norm(input);
  return vocab.filter((v) => norm(v) === needle);
}

/**
 * The closed vocabulary a field's values are checked against. A bitmask field can only represent
 * its bit list, so that list wins over enum_values.
 */
export function vocabularyOf(field: CatalogField): readonly string[] | undefined {
  if (field.storage.kind === 'bitmask') return field.storage.values;
  return field.enum_values;
}

/** Operators whose values are members of the vocabulary (LIKE patterns and ranges are not). */
export const VOCABULARY_OPS: ReadonlySet<FilterOperator> = new Set<FilterOperator>([
  '=',
  '!=',
  'IN',
  'NOT IN',
  'ARRAY_CONTAINS',
  'ARRAY_CONTAINS_ANY',
]);
