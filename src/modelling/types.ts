/**
 * Shared types of the modelling engine. The engine is protocol-free: it knows the warehouse (DuckDB
 * SQL over the current release) and catalog field descriptors passed in by the caller, never
 * segments, workflows or HTTP. Field descriptors are declared here structurally, so a CatalogField of
 * the catalog module is accepted as it is without this layer importing the module.
 */

export type ModelType = 'BOOSTED_TREE_CLASSIFIER' | 'LOGISTIC_REG' | 'AUTOML_CLASSIFIER';
export const MODEL_TYPES: readonly ModelType[] = ['BOOSTED_TREE_CLASSIFIER', 'LOGISTIC_REG', 'AUTOML_CLASSIFIER'];

export type ModelFieldType = 'STRING' | 'INTEGER' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'ARRAY<STRING>';

/** The parts of a catalog field descriptor the engine reads (a CatalogField satisfies it). */
export interface ModelField {
  name: string;
  type: ModelFieldType;
  pii: boolean;
  aliases: readonly string[];
  enum_values?: readonly string[];
  tags?: readonly string[];
  filterable?: boolean;
  operators?: readonly string[];
  storage: { kind: 'column'; column: string } | { kind: 'bitmask'; column: string; values: readonly string[] };
}

/** A set of persons as SQL: a subquery returning `person_key`, with its positional parameters. */
export interface MemberSet {
  sql: string;
  params?: readonly (string | number | boolean | bigint)[];
}

/** What the engine needs of the warehouse (src/graph/warehouse.ts `Warehouse` satisfies it). */
export interface ModelWarehouse {
  query<T extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  stream(sql: string, onChunk: (columns: unknown[][], rowCount: number) => void | Promise<void>): Promise<void>;
}

/** Progress stages of a run, for the workflow's run log. */
export type ModelStage = 'labels' | 'sample' | 'train' | 'score' | 'metrics' | 'segment' | 'done';
