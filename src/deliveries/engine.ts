/**
 * The export engine: the rows of one audience snapshot (or matched audience) with the organization's
 * tier 01 ids and the given catalog fields, written as deterministic, atomically renamed part files.
 *
 *   const result = await exportRows({ warehouse, members: { sql: m.select, params: m.params }, fields,
 *     personIds: { orgId, orgClientCode, secret }, format: 'csv', compression: 'gzip', outputDir });
 *
 * Columns: [row_id (matched sources only)], iag_person_id, the fields in the given order, [echoed
 * inputs]. Rows: audiences in person_key order; matched sources in the customer's file order, then
 * members without a source row by key. Same request and release -> same bytes (no timestamps, fixed
 * Avro sync marker, gzip without a name or mtime). Rows are read, encoded and written a chunk at a
 * time, so memory does not grow with the audience. docs/decisions/022-export-engine.md says why the
 * rows are encoded in JavaScript rather than by DuckDB's COPY.
 */
import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { openChunkSource, type RowChunk } from './batches.ts';
import { fieldColumn, stringColumn, type OutputColumn } from './columns.ts';
import { ExportFailedError, ExportRequestError } from './errors.ts';
import { chunkIds, type ChunkIds } from './ids.ts';
import { avroEncoder, type AvroEncoder } from './formats/avro.ts';
import { csvEncoder } from './formats/csv.ts';
import type { EncoderColumn, RowEncoder } from './formats/encoder.ts';
import { jsonLinesEncoder } from './formats/json.ts';
import { PartWriter, partName, removeStaleParts, type FinishedPart, type UnitTransform } from './parts.ts';
import type { ExportRequest, ExportResult } from './types.ts';

const gzip = promisify(zlib.gzip);
const deflateRaw = promisify(zlib.deflateRaw);

export const DEFAULT_PART_ROWS = 1_000_000;
/**
 * zlib level of gzip members and Avro deflate blocks. Level 1 compresses this data 4.6x at ~160 MB/s
 * a core; level 6 (zlib's default) 6.7x at ~55 MB/s, which alone would take 4 core-seconds for a
 * 1M-row CSV with standard_enrichment (230 MB).
 */
export const DEFAULT_COMPRESSION_LEVEL = 1;
/**
 * zlib's output buffer per call back into JS. The default (16 KiB) made about 4,000 callbacks on the main
 * thread for one part's units (0.5 s of a 1M-row Avro export); the compressed bytes do not depend on it.
 */
const ZLIB_CHUNK_SIZE = 1 << 20;
export const ID_COLUMN = 'iag_person_id';
/** Chunks read ahead of the one being encoded, so the id worker works while the main thread encodes. */
const ID_LOOKAHEAD = 3;
export const ROW_ID_COLUMN = 'row_id';

interface Plan {
  /** Columns the chunk source reads, in chunk order (row_id first for matched sources). */
  sourceColumns: OutputColumn[];
  encoderColumns: EncoderColumn[];
  echoColumns: OutputColumn[];
  rowIdColumn: OutputColumn | null;
}

function plan(req: ExportRequest): Plan {
  const fieldColumns = req.fields.map((f) => fieldColumn(f, 'p'));
  const echoColumns = (req.matched?.echo ?? []).map((e, i) => stringColumn(e.name, `r.e${i}`));
  const rowIdColumn = req.matched ? stringColumn(ROW_ID_COLUMN, 'row_id') : null;
  const encoderColumns: EncoderColumn[] = [
    ...(rowIdColumn ? [{ name: ROW_ID_COLUMN, kind: 'string' as const }] : []),
    // Ids are CODE_01_ plus base32: never quoted or escaped.
    { name: ID_COLUMN, kind: 'string', plain: true },
    ...fieldColumns.map((c) => ({ name: c.name, kind: c.kind, ...(c.vocabulary ? { vocabulary: c.vocabulary } : {}) })),
    ...echoColumns.map((c) => ({ name: c.name, kind: c.kind })),
  ];
  const seen = new Set<string>();
  for (const c of encoderColumns) {
    if (seen.has(c.name)) throw new ExportRequestError(`output column "${c.name}" appears twice`);
    seen.add(c.name);
  }
  return { sourceColumns: fieldColumns, encoderColumns, echoColumns, rowIdColumn };
}

function encoderFor(req: ExportRequest, columns: EncoderColumn[]): RowEncoder {
  switch (req.format) {
    case 'csv': return csvEncoder(columns);
    case 'json':
    case 'jsonl': return jsonLinesEncoder(columns, req.format);
    case 'avro': return avroEncoder(columns);
    default: throw new ExportRequestError(`unknown output format ${String(req.format)}`);
  }
}

function validate(req: ExportRequest): void {
  const partRows = req.partRows ?? DEFAULT_PART_ROWS;
  if (!Number.isSafeInteger(partRows) || partRows < 1) throw new ExportRequestError('partRows must be a positive integer');
  if (req.compression !== 'none' && req.compression !== 'gzip') throw new ExportRequestError(`unknown compression ${String(req.compression)}`);
  if (req.partPrefix !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(req.partPrefix)) {
    throw new ExportRequestError('partPrefix may hold only letters, digits, _ and -');
  }
}

/** Writes the export's parts into req.outputDir and returns them in order. */
export async function exportRows(req: ExportRequest): Promise<ExportResult> {
  validate(req);
  const p = plan(req);
  const encoder = encoderFor(req, p.encoderColumns);
  const level = DEFAULT_COMPRESSION_LEVEL;
  const avro = req.format === 'avro' ? (encoder as AvroEncoder) : null;
  const compression = avro ? 'none' : req.compression;
  const extension = compression === 'gzip' ? `${encoder.extension}.gz` : encoder.extension;
  const transform: UnitTransform = avro
    ? async (u) => avro.frame(u.rows, await deflateRaw(u.data, { level, chunkSize: ZLIB_CHUNK_SIZE }))
    : compression === 'gzip' ? (u) => gzip(u.data, { level, chunkSize: ZLIB_CHUNK_SIZE }) : (u) => u.data;
  const prefix = req.partPrefix ?? 'part';
  const partRows = req.partRows ?? DEFAULT_PART_ROWS;
  fs.mkdirSync(req.outputDir, { recursive: true });
  removeStaleParts(req.outputDir, prefix, extension, Number.MAX_SAFE_INTEGER);

  const source = await openChunkSource({
    warehouse: req.warehouse, members: req.members, columns: p.sourceColumns,
    matched: req.matched && { ...req.matched, rowIdColumn: p.rowIdColumn!, echoColumns: p.echoColumns },
  });
  let ids: ChunkIds | null = null;
  const parts: FinishedPart[] = [];
  let writer: PartWriter | null = null;
  const open = () => {
    const header = encoder.header();
    // A text header is a unit (gzip compresses it with the rows); Avro's container header stays raw.
    const w = new PartWriter(req.outputDir, partName(prefix, parts.length, extension), avro ? header : null, transform);
    if (!avro && header) void w.push({ rows: 0, data: header });
    return w;
  };
  const write = async (chunk: RowChunk, chunkIdValues: (string | null)[]) => {
    const values = chunkValues(chunk, chunkIdValues, p.rowIdColumn !== null);
    for (let from = 0; from < chunk.count;) {
      writer ??= open();
      const take = Math.min(chunk.count - from, partRows - writer.rows);
      await writer.push({ rows: take, data: encoder.encode(values, from, from + take) });
      from += take;
      if (writer.rows >= partRows) {
        parts.push(await writer.finish());
        writer = null;
      }
    }
  };
  // A chunk's ids are asked for when it arrives and used ID_LOOKAHEAD chunks later (ids.ts).
  const waiting: { chunk: RowChunk; ids: Promise<(string | null)[]> }[] = [];
  try {
    ids = chunkIds(req.personIds, req.idWorker ?? false);
    for await (const chunk of source.chunks()) {
      const pending = ids.of(chunk.keys, chunk.count, chunk.hasKey);
      // Awaited in order below; until then a failure must not count as an unhandled rejection.
      pending.catch(() => {});
      waiting.push({ chunk, ids: pending });
      if (waiting.length > ID_LOOKAHEAD) {
        const next = waiting.shift()!;
        await write(next.chunk, await next.ids);
      }
    }
    for (let next = waiting.shift(); next; next = waiting.shift()) await write(next.chunk, await next.ids);
    // An empty export still has one (header-only) part; a partial last part is finished here.
    if (writer || parts.length === 0) parts.push(await (writer ?? open()).finish());
    writer = null;
    removeStaleParts(req.outputDir, prefix, extension, parts.length);
    const rows = parts.reduce((s, x) => s + x.rows, 0);
    if (rows !== source.total) throw new ExportFailedError(`export wrote ${rows} rows, expected ${source.total}`);
    return {
      parts, output_record_count: rows, output_bytes: parts.reduce((s, x) => s + x.bytes, 0),
      output_compression: compression, columns: p.encoderColumns.map((c) => c.name),
    };
  } catch (error) {
    (writer as PartWriter | null)?.abort();
    throw error instanceof ExportRequestError || error instanceof ExportFailedError ? error : new ExportFailedError(`export failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await ids?.close();
    await source.close();
  }
}

/** The chunk's columns in output order, with the chunk's tier 01 ids. */
function chunkValues(chunk: RowChunk, idValues: (string | null)[], matched: boolean): unknown[][] {
  if (chunk.fallbackIds) {
    for (let i = 0; i < chunk.count; i++) if (idValues[i] === null) idValues[i] = chunk.fallbackIds[i] ?? null;
  }
  return matched ? [chunk.values[0]!, idValues, ...chunk.values.slice(1)] : [idValues, ...chunk.values];
}
