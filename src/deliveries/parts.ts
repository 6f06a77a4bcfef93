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
  private readonly queue: Promise<Buffer>[] = [];
  private readonly file: string;
  private readonly temp: string;
  private readonly fd: number;

  constructor(private readonly dir: string, readonly name: string, prefix: Buffer | null,
    private readonly transform: UnitTransform, private readonly inFlight = 4) {
    this.file = path.join(dir, name);
    this.temp = path.join(dir, tempName(name));
    this.fd = fs.openSync(this.temp, 'w');
    if (prefix) this.writeNow(prefix);
  }

  async push(unit: Unit): Promise<void> {
    this.rows += unit.rows;
    const done = Promise.resolve().then(() => this.transform(unit));
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
    try { fs.closeSync(this.fd); } catch { /* already closed */ }
    fs.rmSync(this.temp, { force: true });
  }

  private async writeOldest(): Promise<void> {
    const buf = await this.queue.shift()!;
    this.writeNow(buf);
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
