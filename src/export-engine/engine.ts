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
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { basesGatedColumn, basisNames } from './bases.ts';
import { openChunkSource, type RowChunk } from './batches.ts';
import { fieldColumn, ID_COLUMN, stringColumn, type OutputColumn } from './columns.ts';
import { ExportFailedError, ExportRequestError } from './errors.ts';
import { chunkIds, type ChunkIds } from './ids.ts';
import type { AvroEncoder } from './file-formats/avro.ts';
import type { EncoderColumn, RowEncoder } from './file-formats/encoder.ts';
import { encoderFor } from './file-formats/for-format.ts';
import { PartSink, type UnitTransform } from './parts.ts';
import { exportRenderedRows } from './rendered/export.ts';
import { openRenderedRows, type RenderedRowsReader } from './rendered/file.ts';
import { encoderColumnOf, renderedRowsKey } from './rendered/key.ts';
import type { ExportRequest, ExportResult, MemberBases } from './types.ts';

export { ID_COLUMN };

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
/** Chunks read ahead of the one being encoded, so the id worker works while the main thread encodes. */
const ID_LOOKAHEAD = 3;
export const ROW_ID_COLUMN = 'row_id';

interface Plan {
  /** Columns the chunk source reads, in chunk order (row_id first for matched sources). */
  sourceColumns: OutputColumn[];
  encoderColumns: EncoderColumn[];
  echoColumns: OutputColumn[];
  rowIdColumn: OutputColumn | null;
  /** Per-member disclosure (bases.ts), with the bases in bit order; null: no row is gated. */
  bases: { of: MemberBases; names: string[] } | null;
}

/**
 * Whose fields are gated (decision 051): the request's member bases, or else the members of a matched
 * source with levels, by their rows in it.
 */
function memberBasesOf(req: ExportRequest): MemberBases | null {
  if (req.memberBases) return req.memberBases;
  const m = req.matched;
  return m?.levels ? { levels: [{ path: m.path, ...m.levels }], members: [], selected: null } : null;
}

function plan(req: ExportRequest): Plan {
  const of = memberBasesOf(req);
  const bases = of && { of, names: basisNames(req.fields) };
  // With bases, a field is NULL on a gated member none of whose bases may carry it.
  const fieldColumns = req.fields.map((f) => (bases ? basesGatedColumn(fieldColumn(f, 'p'), f, bases.names) : fieldColumn(f, 'p')));
  const echoColumns = (req.matched?.echo ?? []).map((e, i) => stringColumn(e.name, `r.e${i}`));
  const rowIdColumn = req.matched ? stringColumn(ROW_ID_COLUMN, 'row_id') : null;
  const encoderColumns: EncoderColumn[] = [
    ...(rowIdColumn ? [{ name: ROW_ID_COLUMN, kind: 'string' as const }] : []),
    // Ids are CODE_01_ plus base32: never quoted or escaped.
    { name: ID_COLUMN, kind: 'string', plain: true },
    ...fieldColumns.map(encoderColumnOf),
    ...echoColumns.map((c) => ({ name: c.name, kind: c.kind })),
  ];
  const seen = new Set<string>();
  for (const c of encoderColumns) {
    if (seen.has(c.name)) throw new ExportRequestError(`output column "${c.name}" appears twice`);
    seen.add(c.name);
  }
  return { sourceColumns: fieldColumns, encoderColumns, echoColumns, rowIdColumn, bases };
}

function validate(req: ExportRequest): void {
  const partRows = req.partRows ?? DEFAULT_PART_ROWS;
  if (!Number.isSafeInteger(partRows) || partRows < 1) throw new ExportRequestError('partRows must be a positive integer');
  if (req.compression !== 'none' && req.compression !== 'gzip')
    throw new ExportRequestError(`unknown compression ${String(req.compression)}`);
  if (req.partPrefix !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(req.partPrefix)) {
    throw new ExportRequestError('partPrefix may hold only letters, digits, _ and -');
  }
}

/** The part sink of an export: its format's header, extension and unit transform (gzip member, Avro block). */
function sinkOf(req: ExportRequest, encoder: RowEncoder): { sink: PartSink; compression: ExportResult['output_compression'] } {
  const level = DEFAULT_COMPRESSION_LEVEL;
  const avro = req.format === 'avro' ? (encoder as AvroEncoder) : null;
  const compression = avro ? 'none' : req.compression;
  const extension = compression === 'gzip' ? `${encoder.extension}.gz` : encoder.extension;
  const transform: UnitTransform = avro
    ? async (u) => avro.frame(u.rows, await deflateRaw(u.data, { level, chunkSize: ZLIB_CHUNK_SIZE }))
    : compression === 'gzip'
      ? (u) => gzip(u.data, { level, chunkSize: ZLIB_CHUNK_SIZE })
      : (u) => u.data;
  const sink = new PartSink({
    dir: req.outputDir,
    prefix: req.partPrefix ?? 'part',
    extension,
    partRows: req.partRows ?? DEFAULT_PART_ROWS,
    header: encoder.header(),
    rawHeader: avro !== null,
    transform,
  });
  return { sink, compression };
}

/** Writes the export's parts into req.outputDir and returns them in order. */
export async function exportRows(req: ExportRequest): Promise<ExportResult> {
  validate(req);
  const p = plan(req);
  const encoder = encoderFor(req.format, p.encoderColumns);
  const { sink, compression } = sinkOf(req, encoder);
  let rendered: RenderedRowsReader | null = null;
  try {
    // Rendered rows carry every field of every member: not for matched sources or gated members.
    rendered = req.matched || p.bases ? null : openRendered(req, p);
    const total = rendered ? await exportRenderedRows({ ...req, file: rendered, sink }) : await exportFromWarehouse(req, p, encoder, sink);
    const parts = await sink.finish();
    const rows = parts.reduce((s, x) => s + x.rows, 0);
    if (rows !== total) throw new ExportFailedError(`export wrote ${rows} rows, expected ${total}`);
    return {
      parts,
      output_record_count: rows,
      output_bytes: parts.reduce((s, x) => s + x.bytes, 0),
      output_compression: compression,
      columns: p.encoderColumns.map((c) => c.name),
    };
  } catch (error) {
    sink.abort();
    throw error instanceof ExportRequestError || error instanceof ExportFailedError
      ? error
      : new ExportFailedError(`export failed: ${(error as Error).message}`, { cause: error });
  } finally {
    rendered?.close();
  }
}

/**
 * The rendered rows of this export's fields and format, when the caller has them (rendered/): an
 * audience export then copies each member's row and adds its id, never reading the persons table.
 */
function openRendered(req: ExportRequest, p: Plan): RenderedRowsReader | null {
  if (!req.renderedRows || p.sourceColumns.length === 0) return null;
  const key = renderedRowsKey(req.format, p.sourceColumns);
  const path = req.renderedRows(key);
  return path ? openRenderedRows(path, key) : null;
}

/** Rows read from the warehouse a chunk at a time, their ids computed, encoded and pushed; returns the row count. */
async function exportFromWarehouse(req: ExportRequest, p: Plan, encoder: RowEncoder, sink: PartSink): Promise<number> {
  const source = await openChunkSource({
    warehouse: req.warehouse,
    members: req.members,
    columns: p.sourceColumns,
    matched: req.matched && { ...req.matched, rowIdColumn: p.rowIdColumn!, echoColumns: p.echoColumns },
    ...(p.bases ? { bases: p.bases } : {}),
  });
  let ids: ChunkIds | null = null;
  const write = async (chunk: RowChunk, chunkIdValues: (string | null)[]) => {
    const values = chunkValues(chunk, chunkIdValues, p.rowIdColumn !== null);
    for (let from = 0; from < chunk.count;) {
      const take = Math.min(chunk.count - from, sink.room());
      await sink.push(take, encoder.encode(values, from, from + take));
      from += take;
    }
  };
  // A chunk's ids are asked for when it arrives and used ID_LOOKAHEAD chunks later (ids.ts).
  const waiting: { chunk: RowChunk; ids: Promise<(string | null)[]> }[] = [];
  try {
    ids = chunkIds(req.personIds, req.idWorker ?? false);
    for await (const chunk of source.chunks()) {
      const pending = ids.of(chunk.keys, chunk.count, chunk.hasKey, chunk.levels);
      // Awaited in order below; until then a failure must not count as an unhandled rejection.
      pending.catch(() => {});
      waiting.push({ chunk, ids: pending });
      if (waiting.length > ID_LOOKAHEAD) {
        const next = waiting.shift()!;
        await write(next.chunk, await next.ids);
      }
    }
    for (let next = waiting.shift(); next; next = waiting.shift()) await write(next.chunk, await next.ids);
    return source.total;
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
