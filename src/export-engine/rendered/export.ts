/**
 * An audience export from rendered rows (file.ts): the member keys are read once, sorted; each is found
 * in the file's key section; the rows are read in large coalesced ranges (one range ahead, in libuv's
 * pool, while the main thread assembles); and each output row is the organization's id framed for the
 * format, then the member's rendered row. Units are 2,048 rows, as the row-by-row engine's (one DuckDB
 * vector each) and split at part boundaries alike, so gzip members and Avro blocks, and with them the
 * parts' bytes, are the same whichever path wrote them.
 */
import fs from 'node:fs';
import { promisify } from 'node:util';
import { graphPersonIdHashes, graphPersonIdPrefix } from '../../identity/person-id-batch.ts';
import { graphPersonIdKeys } from '../../identity/person-id.ts';
import { readMemberKeys } from '../batches.ts';
import { ID_COLUMN } from '../columns.ts';
import { ExportFailedError } from '../errors.ts';
import { ByteBuffer } from '../file-formats/bytes.ts';
import type { PartSink } from '../parts.ts';
import type { ExportFormat, ExportMembers, ExportPersonIds, ExportWarehouse } from '../types.ts';
import type { RenderedRowsReader } from './file.ts';
import { familyOf } from './key.ts';

const read = promisify(fs.read);
/** Rows per unit: DuckDB's vector size, the row-by-row engine's unit. */
const UNIT_ROWS = 2048;
/** Key section entries read at a time while locating members. */
const KEY_BLOCK = 1 << 16;
/**
 * Largest coalesced read (2 MiB: the rows copied out of it are still in the L3 cache; 8 MiB measured
 * ~10% slower at 1M rows); rows closer than READ_GAP to the previous one join its read.
 */
const READ_WINDOW = 2 << 20;
const READ_GAP = 128 << 10;
/** Coalesced reads in flight (libuv's pool) while the main thread copies from an earlier one. */
const READS_AHEAD = 2;
/** Characters of an id after its organization prefix (person-id-batch.ts). */
const HASH_CHARS = 26;

export interface RenderedExport {
  warehouse: ExportWarehouse;
  members: ExportMembers;
  personIds: ExportPersonIds;
  format: ExportFormat;
  file: RenderedRowsReader;
  sink: PartSink;
}

/** Pushes every member's row to the sink; returns the row count. */
export async function exportRenderedRows(o: RenderedExport): Promise<number> {
  const { encKey, macKey } = graphPersonIdKeys(o.personIds);
  // In-process: with the four-lane HMAC an id costs ~0.3 us here, less than handing it to the id worker.
  const hashes = graphPersonIdHashes(encKey, macKey);
  const buffers = new UnitBuffers();
  const keys = await readMemberKeys(o.warehouse, o.members);
  const n = keys.length;
  const rows = locateRows(o.file, keys);
  const frame = idFrame(o.format, graphPersonIdPrefix(o.personIds.orgClientCode));
  const windows = new RowWindows(o.file, rows);
  for (let unit = 0; unit < n; unit += UNIT_ROWS) {
    const unitEnd = Math.min(n, unit + UNIT_ROWS);
    const text = hashes.hashes(keys.subarray(unit, unitEnd), unitEnd - unit);
    for (let from = unit; from < unitEnd;) {
      const take = Math.min(unitEnd - from, o.sink.room());
      const data = await assemble(buffers, from, from + take, text, (from - unit) * HASH_CHARS, frame, rows, windows);
      await o.sink.push(take, data, buffers.release);
      from += take;
    }
  }
  return n;
}

interface IdFrame {
  /** Bytes before the id's hash (the format's framing and the organization prefix) and after it. */
  before: Buffer;
  after: Buffer;
  /** Leading bytes of a rendered row the output drops (json: its `{`, which `before` opened). */
  skip: number;
}

/** How the row-by-row engine writes the id column first in each format (csv.ts, json.ts, avro.ts). */
function idFrame(format: ExportFormat, prefix: string): IdFrame {
  switch (familyOf(format)) {
    case 'csv':
      return { before: Buffer.from(prefix), after: Buffer.from(','), skip: 0 };
    case 'json':
      return { before: Buffer.from(`{${JSON.stringify(ID_COLUMN)}:"${prefix}`), after: Buffer.from('",'), skip: 1 };
    case 'avro': {
      // A non-null ["null", "string"]: branch 1 (zigzag 2), the ASCII id's length, the id.
      const b = new ByteBuffer(16);
      b.byte(2);
      b.zigzag(prefix.length + HASH_CHARS);
      return { before: Buffer.concat([b.take(), Buffer.from(prefix)]), after: Buffer.alloc(0), skip: 0 };
    }
  }
}

interface LocatedRows {
  count: number;
  starts: Float64Array;
  ends: Float64Array;
}

/** Each member's byte range in the file. */
function locateRows(file: RenderedRowsReader, keys: BigInt64Array): LocatedRows {
  return file.denseFrom === null ? mergeRows(file, keys) : denseRows(file, file.denseFrom, keys);
}

/** Keys 1..N (or any consecutive run): a member's row is its key minus the first; only the ends blocks holding members are read. */
function denseRows(file: RenderedRowsReader, denseFrom: number, keys: BigInt64Array): LocatedRows {
  const n = keys.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const mLo = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
  const mHi = new Int32Array(keys.buffer, keys.byteOffset, n * 2);
  // One extra entry in front: the end of the row before the block's first.
  const block = Buffer.allocUnsafe((KEY_BLOCK + 1) * 8);
  const fEnd = new Float64Array(block.buffer, block.byteOffset, KEY_BLOCK + 1);
  let loaded = -1;
  for (let i = 0; i < n; i++) {
    const pos = mHi[2 * i + 1]! * 4294967296 + mLo[2 * i]! - denseFrom;
    if (!(pos >= 0 && pos < file.rows)) throw new ExportFailedError(`member ${keys[i]} is not a person of the release's rendered rows`);
    const b = Math.floor(pos / KEY_BLOCK);
    const first = b * KEY_BLOCK;
    if (b !== loaded) {
      const count = Math.min(KEY_BLOCK, file.rows - first);
      fEnd[0] = 0;
      if (first === 0) fs.readSync(file.fd, block, 8, count * 8, file.endsAt);
      else fs.readSync(file.fd, block, 0, (count + 1) * 8, file.endsAt + (first - 1) * 8);
      loaded = b;
    }
    starts[i] = fEnd[pos - first]!;
    ends[i] = fEnd[pos - first + 1]!;
  }
  return { count: n, starts, ends };
}

/** Any other keys: a merge of the sorted member keys with the file's key section. */
function mergeRows(file: RenderedRowsReader, keys: BigInt64Array): LocatedRows {
  const n = keys.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  // Keys compare as (signed high half, unsigned low half): no BigInt per comparison.
  const mLo = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
  const mHi = new Int32Array(keys.buffer, keys.byteOffset, n * 2);
  const block = Buffer.allocUnsafe(KEY_BLOCK * 8);
  const endBlock = Buffer.allocUnsafe(KEY_BLOCK * 8);
  const fLo = new Uint32Array(block.buffer, block.byteOffset, KEY_BLOCK * 2);
  const fHi = new Int32Array(block.buffer, block.byteOffset, KEY_BLOCK * 2);
  const fEnd = new Float64Array(endBlock.buffer, endBlock.byteOffset, KEY_BLOCK);
  let i = 0;
  let prevEnd = 0;
  for (let first = 0; first < file.rows && i < n; first += KEY_BLOCK) {
    const count = Math.min(KEY_BLOCK, file.rows - first);
    fs.readSync(file.fd, block, 0, count * 8, file.keysAt + first * 8);
    fs.readSync(file.fd, endBlock, 0, count * 8, file.endsAt + first * 8);
    for (let j = 0; j < count && i < n; j++) {
      const hi = mHi[2 * i + 1]!;
      const fh = fHi[2 * j + 1]!;
      if (fh < hi || (fh === hi && fLo[2 * j]! < mLo[2 * i]!)) continue;
      if (fh !== hi || fLo[2 * j] !== mLo[2 * i]) break;
      starts[i] = j === 0 ? prevEnd : fEnd[j - 1]!;
      ends[i] = fEnd[j]!;
      i++;
    }
    prevEnd = fEnd[count - 1]!;
    // A member the block passed over without finding is in no later block either.
    if (i < n && first + count < file.rows && passed(mHi[2 * i + 1]!, mLo[2 * i]!, fHi, fLo, count)) break;
  }
  if (i < n) throw new ExportFailedError(`member ${keys[i]} is not a person of the release's rendered rows`);
  return { count: n, starts, ends };
}

/** Whether the block's last key sorts after key (hi, lo). */
function passed(hi: number, lo: number, fHi: Int32Array, fLo: Uint32Array, count: number): boolean {
  const h = fHi[2 * count - 1]!;
  return h > hi || (h === hi && fLo[2 * count - 2]! > lo);
}

/** One coalesced read: rows [first, last) of the located rows, the file bytes [start, end). */
interface Range {
  first: number;
  last: number;
  start: number;
  buf: Buffer;
}

/** Reads the located rows in order, READS_AHEAD coalesced ranges ahead of the one being copied from. */
class RowWindows {
  private current: Range | null = null;
  private readonly ahead: Promise<Range>[] = [];
  private readonly spare: Buffer[] = [];
  private planned = 0;

  constructor(
    private readonly file: RenderedRowsReader,
    private readonly rows: LocatedRows,
  ) {}

  /** The range holding row `i` (rows are asked for in order). */
  async at(i: number): Promise<Range> {
    if (this.current && i < this.current.last) return this.current;
    // The previous range's rows are all copied: its buffer takes a later read.
    if (this.current) this.spare.push(this.current.buf);
    if (this.ahead.length === 0) this.planNext();
    this.current = await this.ahead.shift()!;
    while (this.ahead.length < READS_AHEAD && this.planned < this.rows.count) this.planNext();
    if (i < this.current.first || i >= this.current.last) throw new ExportFailedError('rendered rows read out of order');
    return this.current;
  }

  /** Plans the next range (rows from `planned` on) and starts reading it. */
  private planNext(): void {
    const { starts, ends, count } = this.rows;
    const first = this.planned;
    const start = starts[first]!;
    let end = ends[first]!;
    let last = first + 1;
    while (last < count && starts[last]! - end <= READ_GAP && ends[last]! - start <= READ_WINDOW) end = ends[last++]!;
    this.planned = last;
    const spare = this.spare.pop();
    const buf = spare && spare.length >= end - start ? spare : Buffer.allocUnsafe(Math.max(READ_WINDOW, end - start));
    const range = this.load({ first, last, start, buf }, end - start);
    range.catch(() => {});
    this.ahead.push(range);
  }

  private async load(range: Range, length: number): Promise<Range> {
    for (let off = 0; off < length;) {
      const { bytesRead } = await read(this.file.fd, range.buf, off, length - off, range.start + off);
      if (bytesRead === 0) throw new ExportFailedError('rendered rows file is shorter than its index');
      off += bytesRead;
    }
    return range;
  }
}

/** The output bytes of rows [from, to): each row's framed id (its hash in `text` from `textAt` on), then its rendered row. */
async function assemble(
  buffers: UnitBuffers,
  from: number,
  to: number,
  text: Buffer,
  textAt: number,
  frame: IdFrame,
  rows: LocatedRows,
  windows: RowWindows,
): Promise<Buffer> {
  const { starts, ends } = rows;
  const fixed = frame.before.length + HASH_CHARS + frame.after.length - frame.skip;
  let size = 0;
  for (let i = from; i < to; i++) size += fixed + ends[i]! - starts[i]!;
  const out = buffers.take(size);
  const { before, after, skip } = frame;
  let p = 0;
  let range = await windows.at(from);
  for (let i = from; i < to; i++) {
    if (i >= range.last) range = await windows.at(i);
    for (let k = 0; k < before.length; k++) out[p++] = before[k]!;
    const h = textAt + (i - from) * HASH_CHARS;
    for (let k = 0; k < HASH_CHARS; k++) out[p++] = text[h + k]!;
    for (let k = 0; k < after.length; k++) out[p++] = after[k]!;
    const a = starts[i]! - range.start + skip;
    const b = ends[i]! - range.start;
    p += range.buf.copy(out, p, a, b);
  }
  return out;
}

/**
 * Output buffers of units, reused once the part writer is done with them: a fresh 600 KB buffer per
 * unit page-faulted its memory in again every time (~0.1 s of a 1M-row export).
 */
class UnitBuffers {
  private readonly free: ArrayBuffer[] = [];

  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.byteLength >= size);
    const memory = i >= 0 ? this.free.splice(i, 1)[0]! : new ArrayBuffer(Math.max(size, 1 << 20));
    return Buffer.from(memory, 0, size);
  }

  readonly release = (data: Buffer): void => {
    if (this.free.length < 16) this.free.push(data.buffer as ArrayBuffer);
  };
}
