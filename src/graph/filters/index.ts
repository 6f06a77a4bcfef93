/**
 * Filter language: normalize -> validate -> compile, plus the record_limit geography rule.
 *
 *   const n = normalizeFilterInput(body, catalog);            // flat `filters` -> one AND group, aliases -> canonical
 *   if (!n.ok) return 400 INVALID_FILTER with n.issues;
 *   const v = validateFilterGroups(n.groups, catalog, { form: n.form });
 *   if (!v.ok) return 400 INVALID_FILTER with v.issues;        // v.groups is what gets saved
 *   const { sql, params } = compileFilterGroups(v.groups, catalog, { tableAlias: 'p', paramOffset: 0 });
 *   await conn.run(`SELECT count(*) FROM persons p WHERE ${sql}`, params);
 *
 * Semantics (implemented in compile-condition.ts, checked against a plain-TS oracle in
 * test/unit/filters/semantic.test.ts):
 * - Parameters are positional `$k` (DuckDB), numbered from paramOffset + 1; values are never
 *   spliced into SQL. Numbers/dates are CAST to the column type (BIGINT, DOUBLE, DATE, BOOLEAN);
 *   bitmask masks are bigint params cast to BIGINT.
 * - Groups: conditions ANDed within a group; groups joined by their combinator with AND binding
 *   tighter than OR; the first group's combinator is ignored. Empty group list compiles to TRUE.
 * - NULLs follow SQL: every comparison (=, !=, <, IN, NOT IN, BETWEEN, LIKE, ARRAY_CONTAINS*) is
 *   false on a NULL column value, so `!=` / `NOT IN` do not return NULL rows; use
 *   `IS NULL` to include them. IS NULL on an array field (bitmask or list) means "no values":
 *   NULL, empty list or mask 0; IS NOT NULL means at least one value. Empty string is not NULL.
 * - BETWEEN is inclusive. LIKE is SQL LIKE (% any run, _ one character) with `\` as escape.
 * - case_insensitive: DuckDB lower() (full Unicode lower-casing) on both sides in SQL, including
 *   LIKE patterns. When the field is stored_upper and every input is ASCII, the column is compared
 *   to the JS-upper-cased input instead (exactly equivalent for upper-case stored values, given they
 *   contain no KELVIN SIGN / capital dotted I that lower-case into ASCII). Closed vocabularies
 *   (enum validation, bitmask bits) are matched in JS with toLowerCase(), which differs from
 *   DuckDB lower() only on context-dependent letters such as Greek final sigma.
 * - trim_whitespace: strips space, TAB, LF, VT, FF, CR from both ends of both sides (column via
 *   trim(col, chars), input in JS). Independent of case folding. Not applied by IS NULL.
 * - Bitmask fields: input values are matched to the vocabulary at compile time (honouring the
 *   two options); ARRAY_CONTAINS / ARRAY_CONTAINS_ANY become `(col & mask) <> 0`.
 */
export * from './types.ts';
export { normalizeFilterInput, flatGroupId, type FilterInput, type NormalizedFilterInput } from './normalize.ts';
export { validateFilterGroups, type ValidationResult, type ValidateOptions } from './validate.ts';
export { compileFilterGroups, type CompileOptions, type CompiledFilter } from './compile.ts';
export { toDisjunctiveBranches } from './branches.ts';
export { assertFilterBounds, FILTER_BOUNDS } from './bounds.ts';
export { allowedOperators } from './operators.ts';
export type { FilterCatalog } from './catalog-index.ts';
export {
  geographyNarrowing,
  checkRecordLimitGeography,
  MAX_ZIP3_PER_BRANCH,
  GEOGRAPHY_FIELDS,
  type GeographyField,
  type GeographyCondition,
  type BranchGeography,
  type Zip3Resolver,
  type BranchFailure,
  type GeographyCheck,
} from './geography.ts';
