/**
 * Output columns: for each exported catalog field, the SQL that selects it from the release's persons
 * table (alias `p`) and the decoder that turns its raw vectors into one canonical JS value per row.
 * SQL casts every field to one fixed DuckDB type per catalog type, so decoders never guess:
 *   STRING -> VARCHAR (closed vocabularies: a UTINYINT code plus the raw value when out of vocabulary),
 *   INTEGER -> INTEGER, NUMBER -> DOUBLE, BOOLEAN -> BOOLEAN, DATE -> DATE (days since 1970-01-01),
 *   ARRAY<STRING> bitmask -> BIGINT mask, decoded once per distinct mask value.
 * Long vocabulary strings (`less_than_high_school`) live outside DuckDB's 12-byte inline string, and
 * reading each through a pointer cost ~0.3 us; a one-byte code costs nothing.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import { ExportRequestError } from './errors.ts';
import type { ExportField } from './types.ts';
import { booleans, float64s, int32s, rawColumn, strings, uint32Pairs, uint8s } from '../graph/index.ts';

export type ValueKind = 'string' | 'int' | 'double' | 'boolean' | 'date' | 'array';

/** An ARRAY<STRING> value: its items, and its CSV and JSON text (computed once per distinct value). */
export interface ArrayValue {
  items: readonly string[];
  /** CSV cell and JSON text, as UTF-8 bytes. */
  csv: Buffer;
  json: Buffer;
}

export interface OutputColumn {
  name: string;
  kind: ValueKind;
  /** Select-list items (already aliased), in chunk order. */
  sql: string[];
  /** Values of this column for every row of `chunk`; its first SQL item is chunk column `at`. */
  decode(chunk: DuckDBDataChunk, at: number): unknown[];
  /** A closed vocabulary, when the column's strings come from one (encoders cache their text). */
  vocabulary?: readonly string[];
}

/** The tier 01 id column of every export (its first column; after row_id in matched exports). */
export const ID_COLUMN = 'iag_person_id';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const lit = (value: string) => `'${value.replace(/'/g, "''")}'`;
/** Separator of array items in a CSV cell (no catalog vocabulary contains it). */
export const CSV_ARRAY_SEPARATOR = '|';

export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const SQL_TYPE: Record<Exclude<ExportField['type'], 'ARRAY<STRING>'>, { sql: string; kind: ValueKind; width: number }> = {
  STRING: { sql: 'VARCHAR', kind: 'string', width: 16 },
  INTEGER: { sql: 'INTEGER', kind: 'int', width: 4 },
  NUMBER: { sql: 'DOUBLE', kind: 'double', width: 8 },
  BOOLEAN: { sql: 'BOOLEAN', kind: 'boolean', width: 1 },
  DATE: { sql: 'DATE', kind: 'date', width: 4 },
};

function readerFor(kind: ValueKind): (chunk: DuckDBDataChunk, at: number) => unknown[] {
  switch (kind) {
    case 'string':
      return (chunk, at) => strings(rawColumn(chunk, at, 16));
    case 'int':
    case 'date':
      return (chunk, at) => int32s(rawColumn(chunk, at, 4));
    case 'double':
      return (chunk, at) => float64s(rawColumn(chunk, at, 8));
    case 'boolean':
      return (chunk, at) => booleans(rawColumn(chunk, at, 1));
    default:
      throw new Error(`no plain reader for ${kind}`);
  }
}

/**
 * A STRING field with a vocabulary of fewer than 255 values: TRY_CAST to an inline ENUM type gives a
 * one-byte code per row (as cheap as reading the VARCHAR, cheaper than a CASE over the values), plus
 * the raw value for the rare row outside the vocabulary (NULL otherwise).
 */
function enumColumn(f: ExportField, column: string, vocabulary: readonly string[], alias: string): OutputColumn {
  const col = `${alias}.${ident(column)}`;
  const code = `TRY_CAST(${col} AS ENUM(${vocabulary.map(lit).join(', ')}))`;
  const raw = `CASE WHEN ${code} IS NULL THEN CAST(${col} AS VARCHAR) END`;
  return {
    name: f.name,
    kind: 'string',
    vocabulary,
    sql: [`${code} AS ${ident(`${f.name}__code`)}`, `${raw} AS ${ident(`${f.name}__raw`)}`],
    decode(chunk, at) {
      const codes = uint8s(rawColumn(chunk, at, 1));
      const rawValues = strings(rawColumn(chunk, at + 1, 16));
      return codes.map((c, i) => (c === null ? rawValues[i] : vocabulary[c]!));
    },
  };
}

/** Decoded bitmask values per distinct mask (at most a few tens of thousands in a release). */
function maskDecoder(values: readonly string[]): (hi: number, lo: number) => ArrayValue {
  const cache = new Map<number | string, ArrayValue>();
  return (hi, lo) => {
    // Exact as a number while hi < 2^21; wider masks use a string key.
    const key = hi < 0x200000 ? hi * 4294967296 + lo : `${hi}:${lo}`;
    let v = cache.get(key);
    if (!v) {
      const items: string[] = [];
      for (let bit = 0; bit < values.length; bit++) {
        const set = bit < 32 ? (lo >>> bit) & 1 : (hi >>> (bit - 32)) & 1;
        if (set) items.push(values[bit]!);
      }
      v = { items, csv: Buffer.from(csvCell(items.join(CSV_ARRAY_SEPARATOR))), json: Buffer.from(JSON.stringify(items)) };
      cache.set(key, v);
    }
    return v;
  };
}

function bitmaskColumn(f: ExportField, column: string, values: readonly string[], alias: string): OutputColumn {
  if (values.length > 63) throw new ExportRequestError(`bitmask field ${f.name} has more than 63 values`);
  const decode = maskDecoder(values);
  const empty = decode(0, 0);
  return {
    name: f.name,
    kind: 'array',
    sql: [`CAST(${alias}.${ident(column)} AS BIGINT) AS ${ident(f.name)}`],
    decode(chunk, at) {
      const raw = rawColumn(chunk, at, 8);
      const pairs = uint32Pairs(raw);
      const out = new Array<ArrayValue>(raw.count);
      // A NULL mask is "no values", like mask 0 (the filter language treats both as IS NULL).
      for (let i = 0; i < raw.count; i++)
        out[i] = raw.validity && !((raw.validity[i >>> 5]! >>> (i & 31)) & 1) ? empty : decode(pairs[2 * i + 1]!, pairs[2 * i]!);
      return out;
    },
  };
}

/** The output column of one catalog field, selected from persons alias `alias`. */
export function fieldColumn(f: ExportField, alias = 'p'): OutputColumn {
  if (f.type === 'ARRAY<STRING>') {
    if (f.storage.kind !== 'bitmask') throw new ExportRequestError(`array field ${f.name} must be stored as a bitmask`);
    return bitmaskColumn(f, f.storage.column, f.storage.values, alias);
  }
  if (f.storage.kind !== 'column') throw new ExportRequestError(`field ${f.name} of type ${f.type} cannot be stored as a bitmask`);
  const t = SQL_TYPE[f.type];
  if (!t) throw new ExportRequestError(`field ${f.name} has unknown type ${String(f.type)}`);
  if (f.type === 'STRING' && f.enumValues && f.enumValues.length > 0 && f.enumValues.length < 255) {
    return enumColumn(f, f.storage.column, f.enumValues, alias);
  }
  return {
    name: f.name,
    kind: t.kind,
    sql: [`CAST(${alias}.${ident(f.storage.column)} AS ${t.sql}) AS ${ident(f.name)}`],
    decode: readerFor(t.kind),
  };
}

/**
 * `column` whose values are NULL unless `condition` holds for the row (a matched export's per-row
 * disclosure rule, decision 051): each select item `expr AS "alias"` becomes `CASE WHEN ... THEN expr END`.
 */
export function gatedColumn(column: OutputColumn, condition: string): OutputColumn {
  return {
    ...column,
    sql: column.sql.map((item) => {
      const at = item.lastIndexOf(' AS "');
      if (at < 0) throw new ExportRequestError(`select item without an alias: ${item}`);
      return `CASE WHEN ${condition} THEN ${item.slice(0, at)} END${item.slice(at)}`;
    }),
  };
}

/** A VARCHAR column selected by a ready SQL expression (row_id, echoed inputs). */
export function stringColumn(name: string, expression: string): OutputColumn {
  return { name, kind: 'string', sql: [`CAST(${expression} AS VARCHAR) AS ${ident(name)}`], decode: readerFor('string') };
}

export { ident as sqlIdent, lit as sqlLiteral };
