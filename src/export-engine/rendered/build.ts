/**
 * Rendering a release's rows: every person of the attached release read in key order (batches.ts),
 * encoded by the export's own encoder for one format with one field list and no id column, and written
 * as a rendered rows file (file.ts) beside the release. An audience export of that field list and
 * format then copies each member's row and adds its id (export.ts): the same bytes the row-by-row
 * engine writes, at a fraction of the cost (docs/decisions/022, third amendment).
 */
import { openChunkSource } from '../batches.ts';
import { fieldColumn } from '../columns.ts';
import { ExportFailedError, ExportRequestError } from '../errors.ts';
import { encoderFor } from '../file-formats/for-format.ts';
import type { ExportField, ExportFormat, ExportWarehouse } from '../types.ts';
import { openRenderedRows, renderedRowsPath, RenderedRowsWriter } from './file.ts';
import { encoderColumnOf, familyOf, renderedRowsKey } from './key.ts';

export interface BuildRenderedRowsOptions {
  /** Attached to the release `releaseFile` names. */
  warehouse: ExportWarehouse;
  releaseFile: string;
  fields: readonly ExportField[];
  format: ExportFormat;
  /** Stops between chunks (shutdown); the partial file is removed. */
  signal?: AbortSignal;
  personsTable?: string;
}

export interface BuiltRenderedRows {
  path: string;
  rows: number;
  bytes: number;
  /** False when the file was already there. */
  built: boolean;
}

/** The path of the rendered rows of these fields and format for this release (not whether it exists). */
export function renderedRowsFileOf(
  releaseFile: string,
  fields: readonly ExportField[],
  format: ExportFormat,
): { path: string; key: string } {
  const key = renderedRowsKey(
    format,
    fields.map((f) => fieldColumn(f, 'p')),
  );
  return { path: renderedRowsPath(releaseFile, key), key };
}

export async function buildRenderedRows(o: BuildRenderedRowsOptions): Promise<BuiltRenderedRows> {
  const columns = o.fields.map((f) => fieldColumn(f, 'p'));
  if (columns.length === 0) throw new ExportRequestError('rendered rows need at least one field');
  const { path, key } = renderedRowsFileOf(o.releaseFile, o.fields, o.format);
  const existing = openRenderedRows(path, key);
  if (existing) {
    existing.close();
    return { path, rows: existing.rows, bytes: existing.dataBytes, built: false };
  }
  const family = familyOf(o.format);
  const encoder = encoderFor(family, columns.map(encoderColumnOf));
  const persons = o.personsTable ?? 'graph.persons';
  const source = await openChunkSource({
    warehouse: o.warehouse,
    members: { sql: `SELECT person_key FROM ${persons}` },
    columns,
    personsTable: persons,
  });
  const writer = new RenderedRowsWriter(path, key);
  try {
    let rows = 0;
    for await (const chunk of source.chunks()) {
      if (o.signal?.aborted) throw new ExportFailedError('rendering stopped');
      const ends = new Float64Array(chunk.count);
      writer.append(encoder.encode(chunk.values, 0, chunk.count, ends), chunk.keys, ends, chunk.count);
      rows += chunk.count;
    }
    if (rows !== source.total) throw new ExportFailedError(`rendered ${rows} rows, expected ${source.total}`);
    const footer = writer.finish();
    return { path, rows: footer.rows, bytes: footer.dataBytes, built: true };
  } catch (error) {
    writer.abort();
    throw error;
  } finally {
    await source.close();
  }
}
