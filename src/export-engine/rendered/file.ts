/**
 * A rendered rows file: every person of a release, in person_key order, encoded in one output format
 * with one field list and without the tier 01 id (each organization's own, added at export time).
 *
 *   rows   the encoded rows, back to back
 *   keys   int64 LE per row: its person_key            (at `keysAt`, 8-byte aligned; absent when `denseFrom` is set)
 *   ends   float64 LE per row: its end offset in rows  (at `endsAt`)
 *   footer JSON (RenderedRowsFooter), its byte length as uint32 LE, then MAGIC
 *
 * Generated graphs number persons 1..N: their keys need no section, a row's position is its key minus
 * the first (`denseFrom`), and an export reads no keys to find its members.
 *
 * Written under a hidden temp name and renamed into place when complete, so a reader sees a whole
 * file or none, and two processes building the same file each rename a whole copy.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RENDERED_ROWS_VERSION } from './key.ts';

const MAGIC = Buffer.from('ADSROWS1');
const TRAILER = 4 + MAGIC.length;

export interface RenderedRowsFooter {
  version: number;
  key: string;
  rows: number;
  dataBytes: number;
  keysAt: number;
  endsAt: number;
  /** When the keys are consecutive integers from this one (then there is no key section), else null. */
  denseFrom: number | null;
}

/** `<release stem>.rows-v<version>-<key>.bin` beside the release file (a sidecar, like the match index). */
export function renderedRowsPath(releaseFile: string, key: string): string {
  return `${releaseFile.replace(/\.duckdb$/, '')}.rows-v${RENDERED_ROWS_VERSION}-${key}.bin`;
}

/**
 * Whether a release sidecar's name is a rendered rows file this code version reads (retention keeps
 * those; one of an earlier version is stale). A file of a field list the catalog no longer has stays
 * until its release goes.
 */
export function isCurrentRenderedRows(name: string): boolean {
  return new RegExp(`\\.rows-v${RENDERED_ROWS_VERSION}-(csv|json|avro)-[0-9a-f]{16}\\.bin$`).test(name);
}

function writeAll(fd: number, buf: Uint8Array): void {
  for (let off = 0; off < buf.length;) off += fs.writeSync(fd, buf, off, buf.length - off);
}

export class RenderedRowsWriter {
  private readonly temp: string;
  private readonly fd: number;
  private bytes = 0;
  private rows = 0;
  private readonly keys: BigInt64Array[] = [];
  private readonly ends: Float64Array[] = [];
  /** The first key, while every key so far follows the one before it (as a safe integer), else null. */
  private denseFrom: number | null = null;
  private dense = true;
  private lastKey = 0n;

  constructor(
    readonly file: string,
    readonly key: string,
  ) {
    this.temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
    this.fd = fs.openSync(this.temp, 'w');
  }

  /** `count` rows: their bytes, keys and end offsets within `data`. */
  append(data: Buffer, keys: BigInt64Array, ends: Float64Array, count: number): void {
    writeAll(this.fd, data);
    for (let i = 0; i < count && this.dense; i++) {
      const k = keys[i]!;
      if (this.rows + i === 0) this.denseFrom = Number.isSafeInteger(Number(k)) ? Number(k) : null;
      else if (k !== this.lastKey + 1n) this.dense = false;
      this.lastKey = k;
    }
    this.keys.push(keys.slice(0, count));
    const absolute = new Float64Array(count);
    for (let i = 0; i < count; i++) absolute[i] = this.bytes + ends[i]!;
    this.ends.push(absolute);
    this.bytes += data.length;
    this.rows += count;
  }

  finish(): RenderedRowsFooter {
    const denseFrom = this.dense && this.denseFrom !== null && Number.isSafeInteger(this.denseFrom + this.rows) ? this.denseFrom : null;
    const keysAt = Math.ceil(this.bytes / 8) * 8;
    writeAll(this.fd, Buffer.alloc(keysAt - this.bytes));
    if (denseFrom === null) for (const k of this.keys) writeAll(this.fd, new Uint8Array(k.buffer, k.byteOffset, k.byteLength));
    const endsAt = denseFrom === null ? keysAt + this.rows * 8 : keysAt;
    for (const e of this.ends) writeAll(this.fd, new Uint8Array(e.buffer, e.byteOffset, e.byteLength));
    const footer: RenderedRowsFooter = {
      version: RENDERED_ROWS_VERSION,
      key: this.key,
      rows: this.rows,
      dataBytes: this.bytes,
      keysAt,
      endsAt,
      denseFrom,
    };
    const json = Buffer.from(JSON.stringify(footer));
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeUInt32LE(json.length, 0);
    MAGIC.copy(trailer, 4);
    writeAll(this.fd, Buffer.concat([json, trailer]));
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fs.renameSync(this.temp, this.file);
    return footer;
  }

  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(this.temp, { force: true });
  }
}

export interface RenderedRowsReader extends RenderedRowsFooter {
  fd: number;
  close(): void;
}

/** The file at `file` when it is a complete rendered rows file of `key` and this version; else null. */
export function openRenderedRows(file: string, key: string): RenderedRowsReader | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const trailer = Buffer.alloc(TRAILER);
    if (size < TRAILER || fs.readSync(fd, trailer, 0, TRAILER, size - TRAILER) !== TRAILER || !trailer.subarray(4).equals(MAGIC))
      throw new Error('no trailer');
    const length = trailer.readUInt32LE(0);
    const json = Buffer.alloc(length);
    fs.readSync(fd, json, 0, length, size - TRAILER - length);
    const footer = JSON.parse(json.toString('utf8')) as RenderedRowsFooter;
    if (
      footer.version !== RENDERED_ROWS_VERSION ||
      footer.key !== key ||
      footer.endsAt + footer.rows * 8 !== size - TRAILER - length ||
      footer.endsAt !== footer.keysAt + (footer.denseFrom === null ? footer.rows * 8 : 0)
    )
      throw new Error('another file');
    return { ...footer, fd, close: () => fs.closeSync(fd) };
  } catch {
    fs.closeSync(fd);
    return null;
  }
}
