/**
 * Part files. A part is written under a fixed temp name beside it (`.part-00000.csv.tmp`) and renamed
 * into place when complete, so a reader never sees half a part and a retried part replaces both the
 * stale temp file and the finished part under the same name: never a second copy.
 *
 * Bytes arrive as units (a chunk of encoded rows). Each unit is transformed - gzip member, Avro
 * deflate block, or nothing - as soon as it arrives; zlib runs those in libuv's thread pool, so
 * several units compress on other cores while the main thread encodes the next ones. Units are written
 * strictly in arrival order, with at most `inFlight` waiting, which bounds memory.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Unit {
  rows: number;
  data: Buffer;
  /** Told when `data` is no longer read (transformed and written), so its memory can take another unit. */
  release?: (data: Buffer) => void;
}

export type UnitTransform = (unit: Unit) => Buffer | Promise<Buffer>;

export interface FinishedPart {
  path: string;
  name: string;
  bytes: number;
  rows: number;
}

export const partName = (prefix: string, index: number, extension: string) => `${prefix}-${String(index).padStart(5, '0')}.${extension}`;
const tempName = (name: string) => `.${name}.tmp`;

export class PartWriter {
  rows = 0;
  private bytes = 0;
  private readonly queue: Promise<{ out: Buffer; unit: Unit }>[] = [];
  private readonly file: string;
  private readonly temp: string;
  private readonly fd: number;

  constructor(
    private readonly dir: string,
    readonly name: string,
    prefix: Buffer | null,
    private readonly transform: UnitTransform,
    private readonly inFlight = 4,
  ) {
    this.file = path.join(dir, name);
    this.temp = path.join(dir, tempName(name));
    this.fd = fs.openSync(this.temp, 'w');
    if (prefix) this.writeNow(prefix);
  }

  async push(unit: Unit): Promise<void> {
    this.rows += unit.rows;
    const done = Promise.resolve()
      .then(() => this.transform(unit))
      .then((out) => ({ out, unit }));
    // Awaited in order below; until then a failure must not count as an unhandled rejection.
    done.catch(() => {});
    this.queue.push(done);
    while (this.queue.length > this.inFlight) await this.writeOldest();
  }

  async finish(): Promise<FinishedPart> {
    try {
      while (this.queue.length > 0) await this.writeOldest();
    } catch (error) {
      this.abort();
      throw error;
    }
    fs.closeSync(this.fd);
    fs.renameSync(this.temp, this.file);
    return { path: this.file, name: this.name, bytes: this.bytes, rows: this.rows };
  }

  /** Closes and removes the temp file (the finished name is left as it was). */
  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(this.temp, { force: true });
  }

  private async writeOldest(): Promise<void> {
    const { out, unit } = await this.queue.shift()!;
    this.writeNow(out);
    unit.release?.(unit.data);
  }

  private writeNow(buf: Buffer): void {
    // Synchronous writes keep the order trivially; the data is already in memory and the OS buffers it.
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
  }
}

/**
 * Removes what an earlier attempt left in `dir` under this prefix and extension: temp files, and
 * finished parts numbered `keep` or higher (the new attempt wrote fewer parts).
 */
export function removeStaleParts(dir: string, prefix: string, extension: string, keep: number): void {
  const finished = new RegExp(`^${escape(prefix)}-(\\d{5,})\\.${escape(extension)}$`);
  const temp = new RegExp(`^\\.${escape(prefix)}-\\d{5,}\\.${escape(extension)}\\.tmp$`);
  for (const entry of fs.readdirSync(dir)) {
    const m = finished.exec(entry);
    if (temp.test(entry) || (m && Number(m[1]) >= keep)) fs.rmSync(path.join(dir, entry), { force: true });
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface PartSinkOptions {
  dir: string;
  prefix: string;
  /** File extension of a part, compression suffix included. */
  extension: string;
  partRows: number;
  /** Bytes at the start of every part, or null. */
  header: Buffer | null;
  /** Whether the header is written as it is (Avro's container header) or as the first unit (text: gzip compresses it). */
  rawHeader: boolean;
  transform: UnitTransform;
}

/**
 * The parts of one export: units go to the open part, a part is finished when it holds `partRows`
 * rows and the next unit opens the next one. Callers split their units at `room()`.
 */
export class PartSink {
  readonly parts: FinishedPart[] = [];
  private writer: PartWriter | null = null;

  /** Creates the folder and removes what an earlier attempt left there (temp files, parts). */
  constructor(private readonly o: PartSinkOptions) {
    fs.mkdirSync(o.dir, { recursive: true });
    removeStaleParts(o.dir, o.prefix, o.extension, Number.MAX_SAFE_INTEGER);
  }

  /** Rows the open (or next) part still takes. */
  room(): number {
    return this.o.partRows - (this.writer?.rows ?? 0);
  }

  async push(rows: number, data: Buffer, release?: (data: Buffer) => void): Promise<void> {
    this.writer ??= this.open();
    await this.writer.push({ rows, data, ...(release ? { release } : {}) });
    if (this.writer.rows >= this.o.partRows) {
      this.parts.push(await this.writer.finish());
      this.writer = null;
    }
  }

  /** Finishes the last part; an empty export still has one (header-only) part. */
  async finish(): Promise<FinishedPart[]> {
    if (this.writer || this.parts.length === 0) this.parts.push(await (this.writer ?? this.open()).finish());
    this.writer = null;
    removeStaleParts(this.o.dir, this.o.prefix, this.o.extension, this.parts.length);
    return this.parts;
  }

  abort(): void {
    this.writer?.abort();
    this.writer = null;
  }

  private open(): PartWriter {
    const { header } = this.o;
    const w = new PartWriter(
      this.o.dir,
      partName(this.o.prefix, this.parts.length, this.o.extension),
      this.o.rawHeader ? header : null,
      this.o.transform,
    );
    if (!this.o.rawHeader && header) void w.push({ rows: 0, data: header });
    return w;
  }
}
