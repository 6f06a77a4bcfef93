/**
 * Feature sources: which catalog fields a model may read, and how each is encoded, decided from the
 * field descriptors alone (the catalog passed in by the caller, never a copy of it). The concrete
 * features (which enum values, which ZIP3s, numeric scaling) are derived from the training sample in
 * derive.ts; names stay catalog names so weights and importances read as the catalog does.
 *
 * Rules:
 * - PII fields are never features, whatever the caller asks.
 * - Only fields tagged `feature_store` are features (the catalog's marker for model inputs: it leaves
 *   out city, ZIP5 and the work address, which are high-cardinality and mostly null), unless the
 *   caller passes `featureTag: null`.
 * - `excluded_columns` removes fields by canonical name or alias (excluded-columns.ts).
 * - INTEGER / NUMBER are numeric; DATE is numeric in years since 1970; BOOLEAN is an indicator;
 *   STRING with a vocabulary is one-hot over it; STRING without one is one-hot over its most frequent
 *   values in the sample (a target-free encoding); ARRAY<STRING> stored as a bitmask is one indicator
 *   per vocabulary bit. An ARRAY<STRING> stored as a list column is not supported and left out.
 */
import type { ModelField } from '../types.ts';

/** How a numeric column is stored: it decides the literal a tree split compares it with. */
export type NumericType = 'INTEGER' | 'NUMBER' | 'DATE';

export type FeatureSource =
  | { kind: 'numeric'; field: string; column: string; type: NumericType }
  | { kind: 'boolean'; field: string; column: string }
  | { kind: 'category'; field: string; column: string; vocabulary: readonly string[] | null }
  | { kind: 'bitmask'; field: string; column: string; vocabulary: readonly string[] };

export interface FeatureSourceOptions {
  /** Canonical field names to leave out (from parseExcludedColumns). */
  excluded?: readonly string[];
  /** Only fields carrying this tag are features; null = every non-PII field. Default `feature_store`. */
  featureTag?: string | null;
}

export function featureSources(fields: readonly ModelField[], opts: FeatureSourceOptions = {}): FeatureSource[] {
  const excluded = new Set(opts.excluded ?? []);
  const tag = opts.featureTag === undefined ? 'feature_store' : opts.featureTag;
  const out: FeatureSource[] = [];
  for (const f of fields) {
    if (f.pii || excluded.has(f.name)) continue;
    if (tag !== null && f.tags && !f.tags.includes(tag)) continue;
    const source = sourceOf(f);
    if (source) out.push(source);
  }
  return out;
}

function sourceOf(f: ModelField): FeatureSource | null {
  const column = f.storage.column;
  switch (f.type) {
    case 'INTEGER':
    case 'NUMBER':
    case 'DATE':
      return { kind: 'numeric', field: f.name, column, type: f.type };
    case 'BOOLEAN':
      return { kind: 'boolean', field: f.name, column };
    case 'STRING':
      return { kind: 'category', field: f.name, column, vocabulary: f.enum_values && f.enum_values.length > 0 ? f.enum_values : null };
    case 'ARRAY<STRING>':
      return f.storage.kind === 'bitmask' ? { kind: 'bitmask', field: f.name, column, vocabulary: f.storage.values } : null;
  }
}

/** SQL identifier; column names come from the catalog, quoting only guards odd spellings. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The raw value of a source as the sample pull reads it and the scoring SQL compares it:
 * numeric as DOUBLE (dates in days since 1970-01-01), booleans and strings as stored, a bitmask split
 * into two exact 32-bit halves (JS numbers hold 53 bits, masks up to 63).
 */
export function sourceColumnsSql(s: FeatureSource, alias: string): string[] {
  const col = `${alias}.${ident(s.column)}`;
  switch (s.kind) {
    case 'numeric':
      return [numericSql(s, alias)];
    case 'boolean':
    case 'category':
      return [col];
    case 'bitmask':
      return [`(${col} & 4294967295)::UBIGINT::DOUBLE`, `((${col} >> 32) & 2147483647)::DOUBLE`];
  }
}

export function numericSql(s: { column: string; type: NumericType }, alias: string): string {
  const col = `${alias}.${ident(s.column)}`;
  return s.type === 'DATE' ? `CAST(date_diff('day', DATE '1970-01-01', ${col}) AS DOUBLE)` : `CAST(${col} AS DOUBLE)`;
}
