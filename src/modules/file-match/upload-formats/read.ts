/**
 * Streaming readers of uploaded shards: csv (header row), json / jsonl (one object per line), avro
 * (object container files; arrays kept). Each yields plain row objects; nothing holds a whole file.
 * gzip is undone on the fly (avro + gzip is refused at creation, spec 4.5).
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import { pipeline, type Readable } from 'node:stream';
import { parse } from 'csv-parse';
import avro from 'avsc';
import { DEFAULT_UPLOAD_SETTINGS, type UploadSettings } from '../../../config/uploads.ts';
import { fastCsvRows } from './csv-fast.ts';
import { FileDataError, readLimitCheck, recordTooLong } from './limits.ts';

export { FileDataError } from './limits.ts';

export type FileFormat = 'csv' | 'avro' | 'json' | 'jsonl';
export type Compression = 'none' | 'gzip';

export interface ShardReader {
  /** Column names: the CSV header, or the keys seen so far (json/avro) once rows were read. */
  header(): string[] | null;
  rows(): AsyncGenerator<Record<string, unknown>>;
}

/**
 * Bytes a chunk of a shard, read or decompressed. A chunk's rows are parsed at once and live until the last of them
 * is mapped: 1 MiB (some 17,000 rows) outlived the main thread's young generation, and the resolver's read pass of
 * the 1M-row mixed file took 8.81-9.17 s against 8.20-8.24 s with 64 KiB chunks (docs/benchmarks.md).
 */
const CHUNK_BYTES = 1 << 16;

/**
 * The shard's bytes, gzip undone, through the size and line checks (limits.ts). pipeline() ends every stage when
 * one fails or the reader stops early, so a refused gzip bomb leaves no inflater running.
 */
function open(file: string, compression: Compression, limits: UploadSettings, what: string): Readable {
  const raw = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const check = readLimitCheck(limits, what);
  const done = () => {}; // errors reach the reader through `check`
  if (compression !== 'gzip') return pipeline(raw, check, done);
  // zlib's default output chunk is 16 KiB: CHUNK_BYTES gives the parser chunks of the same size as a plain shard's.
  return pipeline(raw, createGunzip({ chunkSize: CHUNK_BYTES }), check, done);
}

function wrap(error: unknown, what: string): never {
  if (error instanceof FileDataError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  if (/incorrect header check|unexpected end of file|invalid (block|distance|stored)/i.test(message)) {
    throw new FileDataError(
      'INVALID_COMPRESSION',
      `${what}: not valid gzip (${message}); send raw gzip bytes without Content-Encoding, or declare compression none.`,
    );
  }
  throw new FileDataError('INVALID_FILE', `${what}: ${message}`);
}

/** The shard's records through csv-parse (the reference; fastCsvRows hands it whatever it does not parse itself). */
async function* parsedCsvRows(
  file: string,
  compression: Compression,
  limits: UploadSettings,
  what: string,
  onHeader: (h: string[]) => void,
): AsyncGenerator<Record<string, unknown>> {
  const source = open(file, compression, limits, what);
  const parser = source.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      max_record_size: limits.maxLineBytes,
      columns: (h: string[]) => {
        const header = h.map((c) => String(c).trim());
        onHeader(header);
        return header;
      },
    }),
  );
  source.on('error', (e) => parser.destroy(e)); // pipe() does not forward source errors
  for await (const row of parser) yield row as Record<string, unknown>;
}

function csvReader(file: string, compression: Compression, limits: UploadSettings, what: string): ShardReader {
  let header: string[] | null = null;
  const onHeader = (h: string[]) => {
    header = h;
  };
  return {
    header: () => header,
    async *rows() {
      const fallback = async function* (skip: number) {
        let n = 0;
        for await (const row of parsedCsvRows(file, compression, limits, what, onHeader)) if (n++ >= skip) yield row;
      };
      try {
        yield* fastCsvRows(() => open(file, compression, limits, what), onHeader, fallback, limits.maxLineBytes);
      } catch (error) {
        // csv-parse's max_record_size: a quoted field running over many lines.
        if ((error as { code?: string })?.code === 'CSV_MAX_RECORD_SIZE') throw recordTooLong(limits, what);
        wrap(error, what);
      }
    },
  };
}

function jsonLinesReader(file: string, compression: Compression, limits: UploadSettings, what: string): ShardReader {
  const keys = new Set<string>();
  return {
    header: () => (keys.size ? [...keys] : null),
    async *rows() {
      const lines = readline.createInterface({ input: open(file, compression, limits, what), crlfDelay: Infinity });
      let n = 0;
      try {
        for await (const line of lines) {
          n++;
          const text = line.trim();
          if (!text) continue;
          if (n === 1 && text.startsWith('[')) {
            throw new FileDataError(
              'INVALID_FILE',
              `${what}: json uploads are newline-delimited objects (one per line), not a top-level array.`,
            );
          }
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            throw new FileDataError('INVALID_FILE', `${what}: line ${n} is not a JSON object.`);
          }
          if (value === null || typeof value !== 'object' || Array.isArray(value))
            throw new FileDataError('INVALID_FILE', `${what}: line ${n} is not a JSON object.`);
          for (const k of Object.keys(value)) keys.add(k);
          yield value as Record<string, unknown>;
        }
      } catch (error) {
        wrap(error, what);
      }
    },
  };
}

function avroReader(file: string, what: string): ShardReader {
  let header: string[] | null = null;
  return {
    header: () => header,
    async *rows() {
      const decoder = avro.createFileDecoder(file);
      decoder.on('metadata', (type: { fields?: { name: string }[] }) => {
        header = (type.fields ?? []).map((f) => f.name);
      });
      try {
        for await (const rec of decoder as AsyncIterable<Record<string, unknown>>) yield { ...rec };
      } catch (error) {
        wrap(error, what);
      }
    },
  };
}

/**
 * `limits` bound csv, json and jsonl shards; an avro file is neither gzip (refused at creation) nor made of lines,
 * and its reader allocates by the lengths its blocks declare.
 */
export function shardReader(
  file: string,
  format: FileFormat,
  compression: Compression,
  shardIndex: number,
  limits: UploadSettings = DEFAULT_UPLOAD_SETTINGS,
): ShardReader {
  const what = `shard ${shardIndex}`;
  if (format === 'csv') return csvReader(file, compression, limits, what);
  if (format === 'avro') return avroReader(file, what);
  return jsonLinesReader(file, compression, limits, what);
}

/** The first `n` rows of a shard (for analysis), with its header. */
export async function sampleShard(
  file: string,
  format: FileFormat,
  compression: Compression,
  n: number,
  limits: UploadSettings = DEFAULT_UPLOAD_SETTINGS,
) {
  const reader = shardReader(file, format, compression, 0, limits);
  const rows: Record<string, unknown>[] = [];
  for await (const row of reader.rows()) {
    rows.push(row);
    if (rows.length >= n) break;
  }
  const header = reader.header() ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return { header, rows };
}
