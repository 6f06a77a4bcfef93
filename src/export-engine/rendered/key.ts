/**
 * Which rendered rows an export can use. Rows rendered for one format family (csv; json and jsonl,
 * whose lines are the same; avro) and one list of field columns are named by a hash of exactly what
 * made their bytes: the columns' names, kinds, vocabularies and source SQL, and RENDERED_ROWS_VERSION.
 * A catalog change or an encoder change that alters bytes gets another name, never a stale file.
 */
import { createHash } from 'node:crypto';
import type { OutputColumn } from '../columns.ts';
import type { EncoderColumn } from '../file-formats/encoder.ts';
import type { ExportFormat } from '../types.ts';

/**
 * 1: rows of the csv, json-lines and avro encoders of 2026-11-24 (rows-codegen.ts), without the id column.
 * Raise it whenever an encoder's bytes for the same values change.
 */
export const RENDERED_ROWS_VERSION = 1;

export type RenderedFamily = 'csv' | 'json' | 'avro';

export function familyOf(format: ExportFormat): RenderedFamily {
  return format === 'jsonl' ? 'json' : format;
}

/** The encoder column of an output column (what the encoders need of it). */
export function encoderColumnOf(c: OutputColumn): EncoderColumn {
  return { name: c.name, kind: c.kind, ...(c.vocabulary ? { vocabulary: c.vocabulary } : {}) };
}

/** `csv-<16 hex>`: the name part of the rendered rows of these field columns in this format. */
export function renderedRowsKey(format: ExportFormat, columns: readonly OutputColumn[]): string {
  const family = familyOf(format);
  const spec = JSON.stringify({
    version: RENDERED_ROWS_VERSION,
    family,
    columns: columns.map((c) => ({ name: c.name, kind: c.kind, sql: c.sql, vocabulary: c.vocabulary ?? null })),
  });
  return `${family}-${createHash('sha256').update(spec).digest('hex').slice(0, 16)}`;
}
