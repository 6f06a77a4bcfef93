/**
 * The export engine's contract (issue #14): what the deliveries module hands it and what it returns.
 * The engine knows nothing of organizations' plans, prices or the catalog module: the caller resolves
 * a field list or template to field descriptors, decides which fields an export may carry (PII only
 * when the field list names them) and gives the engine exactly that.
 */
import type { DuckDBMaterializedResult } from '@duckdb/node-api';

export type ExportFormat = 'csv' | 'json' | 'jsonl' | 'avro';
export type ExportCompression = 'none' | 'gzip';

/** Field types of the catalog (spec 2 "Field catalog"). */
export type ExportFieldType = 'STRING' | 'INTEGER' | 'NUMBER' | 'BOOLEAN' | 'DATE' | 'ARRAY<STRING>';

/** One exported catalog field, as the catalog describes it (src/modules/catalog/types.ts shapes). */
export interface ExportField {
  /** Output column name (the catalog's canonical name). */
  name: string;
  type: ExportFieldType;
  /**
   * Where the value lives in the release's `persons` table: a plain column, or for ARRAY<STRING>
   * a BIGINT bitmask whose bit i means `values[i]` is present.
   */
  storage: { kind: 'column'; column: string } | { kind: 'bitmask'; column: string; values: readonly string[] };
  /**
   * Closed vocabulary of a STRING field. Optional; when given, values travel from DuckDB as small
   * codes instead of strings (an unknown value is still exported as it is).
   */
  enumValues?: readonly string[];
  /** Personally identifying (catalog `pii`). The engine writes what it is given; the caller checks it. */
  pii: boolean;
  /**
   * In an export with `memberBases`: the match bases (decision 051: a match level, or `refresh` for a
   * direct refresh by id) whose members carry this field; other gated members carry NULL, members the
   * service selected carry it. Absent: every row carries it.
   */
  matchBases?: readonly string[];
}

/** The warehouse calls the engine makes (src/graph/warehouse.ts implements them). */
export interface ExportWarehouse {
  query<T extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: { timeoutMs?: number },
  ): Promise<T[]>;
  /** Runs a statement and returns its whole result, whose raw chunks the engine reads column by column. */
  materialize(sql: string, params?: unknown[]): Promise<DuckDBMaterializedResult>;
}

/** Who is exported: a SELECT returning a `person_key` column (e.g. membershipSql(...).select). */
export interface ExportMembers {
  sql: string;
  params?: unknown[];
}

/**
 * Rows of a matched audience's source file (spec 4.11): one per input row. `person_key` is NULL for an
 * input row that did not match. Read with read_parquet; the file's row order is the customer's order.
 */
export interface MatchedRowsSource {
  /** Parquet file with `row_id VARCHAR` and `person_key BIGINT` (rows.parquet of a file-match run). */
  path: string;
  /** Include input rows that did not match (delivery `include_unmatched`). */
  includeUnmatched: boolean;
  /**
   * Input columns echoed on unmatched rows, from the same file: `column` in the Parquet file, written
   * as `name`. Matched rows carry them as null (they join back by row_id).
   */
  echo?: readonly { column: string; name: string }[];
  /** Column of the Parquet file holding a best-effort id for unmatched rows (tier 02-05); else null. */
  unmatchedIdColumn?: string;
  /**
   * Columns of the file holding each row's match level and match type (rows.parquet: `match_level`,
   * `match_type`). Given, a row's tier 01 id carries its level; without `ExportRequest.memberBases` the
   * file is also the members' bases (its members' fields obey `ExportField.matchBases`).
   */
  levels?: { levelColumn: string; typeColumn: string };
}

/** A Parquet file of a customer list's matched rows with their levels (rows.parquet of a file match). */
export interface LevelsFile {
  /** Holds `person_key BIGINT` and the two columns below, one row per matched input row. */
  path: string;
  levelColumn: string;
  typeColumn: string;
}

/**
 * Who came from the customer's own lists (matched segments) and what each match earned (decision 051).
 * A gated member is one of `members` (or of a `levels` file) that `selected` does not hold; its bases
 * are every basis its rows in `levels` earned (a level, or `refresh` for a match by id), and it carries
 * a field if any of them allows it (`ExportField.matchBases`). A gated member with no row in `levels`
 * has no basis: it carries only fields without `matchBases`, and its id is issued at level A (refreshes
 * nothing). Members not gated (the service selected them) carry every field, with I ids.
 */
export interface MemberBases {
  levels: readonly LevelsFile[];
  /** Parquet files with a `person_key` column: the members of each customer list (with or without levels). */
  members: readonly string[];
  /** The members the service selected itself (filter and model segments of a union); null: none. */
  selected: ExportMembers | null;
}

export interface ExportPersonIds {
  orgId: string;
  orgClientCode: string;
  secret: string | Buffer;
}

export interface ExportRequest {
  warehouse: ExportWarehouse;
  members: ExportMembers;
  fields: readonly ExportField[];
  personIds: ExportPersonIds;
  matched?: MatchedRowsSource;
  /** Per-member disclosure of an audience holding customer lists (types above); absent: no member is gated. */
  memberBases?: MemberBases;
  format: ExportFormat;
  /** Ignored for avro, which always uses its own deflate blocks. */
  compression: ExportCompression;
  /** Folder the part files are written into (created when missing). */
  outputDir: string;
  /** Largest number of rows in one part; default 1,000,000. */
  partRows?: number;
  /** Part file names start with this; default `part`. */
  partPrefix?: string;
  /** Compute tier 01 ids on a worker thread (ids.ts) in a row-by-row export; default false (in-process). */
  idWorker?: boolean;
  /**
   * Where the attached release's rendered rows of a key (rendered/key.ts) are, if it has them: an
   * audience export of those fields and format then copies rows instead of reading persons. Without
   * it (or for a matched audience) rows are read and encoded one by one.
   */
  renderedRows?: (key: string) => string | null;
}

export interface ExportPart {
  /** Absolute path of the finished part. */
  path: string;
  /** Name inside outputDir, e.g. part-00000.csv.gz. */
  name: string;
  bytes: number;
  rows: number;
}

export interface ExportResult {
  parts: ExportPart[];
  output_record_count: number;
  output_bytes: number;
  /** Compression actually applied: `none` for avro (its deflate is internal). */
  output_compression: ExportCompression;
  /** The output columns, in order. */
  columns: string[];
}

export type { DuckDBMaterializedResult };
