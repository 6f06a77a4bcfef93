/**
 * The field catalog: every attribute of a person in the identity graph that a customer can filter on,
 * sample, group by or buy as enrichment. The catalog is the single source of truth shared by the
 * filter compiler (which columns exist and how they are stored), discovery (which fields are PII and
 * can never be sampled), the catalog endpoint and pricing.
 */

export type FieldType = 'STRING' | 'INTEGER' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'ARRAY<STRING>';

export type FilterOperator =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'IN'
  | 'NOT IN'
  | 'BETWEEN'
  | 'LIKE'
  | 'ARRAY_CONTAINS'
  | 'ARRAY_CONTAINS_ANY'
  | 'IS NULL'
  | 'IS NOT NULL';

export type FieldTag = 'audience' | 'feature_store' | 'enrichment';

/** How a field is physically stored in the warehouse `persons` table. */
export type FieldStorage =
  /** A plain column of the persons table. */
  | { kind: 'column'; column: string }
  /**
   * An ARRAY<STRING> field over a fixed vocabulary, stored as a BIGINT bitmask: bit i set means
   * `values[i]` is present (at most 63 values per mask column). A mask test is ~30x faster than a
   * VARCHAR[] scan in DuckDB.
   */
  | { kind: 'bitmask'; column: string; values: readonly string[] };

export interface CatalogField {
  /** Canonical name, the one saved in filters and shown in responses (e.g. `zip5`). */
  name: string;
  type: FieldType;
  description: string;
  category: string;
  filterable: boolean;
  /** Operators allowed on this field; empty when not filterable. */
  operators: readonly FilterOperator[];
  /** Closed vocabulary, when the field has one (STRING enums and ARRAY<STRING> values). */
  enum_values?: readonly string[];
  /** Input names accepted for this field (`zip`, `zip_code`, `postal_code` for `zip5`). */
  aliases: readonly string[];
  /** Personally identifying: never sampled by discovery lookup, never grouped by. */
  pii: boolean;
  tags: readonly FieldTag[];
  /** Per-record enrichment surcharge in integer cents (0 = included). */
  enrichment_price_cents: number;
  /**
   * True when every stored value is already upper-case folded (e.g. city, state), so a
   * case-insensitive comparison may fold only the input instead of every row.
   */
  stored_upper?: boolean;
  storage: FieldStorage;
}

export interface CatalogTemplate {
  template_id: 'standard_iag' | 'standard_enrichment';
  name: string;
  description: string;
  fields: readonly string[];
}
