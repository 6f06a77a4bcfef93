/**
 * The object store: files under DATA_DIR/objects addressed by a slash-separated key. Writes stream to a
 * temp name and rename into place, so a reader (or a crashed writer's retry) never sees half an object.
 * An S3-compatible store can replace this behind the same methods later.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { randomBase62 } from '../lib/ids.ts';

const KEY = /^[A-Za-z0-9_.=-]+(\/[A-Za-z0-9_.=-]+)*$/;

export class ObjectStore {
  readonly root: string;
  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'objects');
  }

  /** Absolute path of a key; keys are ours, but `..` and odd characters are refused anyway. */
  pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((p) => p === '.' || p === '..')) throw new Error(`invalid object key: ${key}`);
    return path.join(this.root, key);
  }

  /** Streams `body` into the object (never buffered whole); returns the bytes written. */
  async put(key: string, body: Readable): Promise<number> {
    const file = this.pathOf(key);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBase62(8)}.part`;
    let bytes = 0;
    body.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    try {
      await pipeline(body, fs.createWriteStream(tmp));
      fs.renameSync(tmp, file);
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      throw error;
    }
    return bytes;
  }

  exists(key: string): boolean {
    return fs.existsSync(this.pathOf(key));
  }

  read(key: string): Readable {
    return fs.createReadStream(this.pathOf(key));
  }

  /** Copies then renames, so the destination appears whole or not at all. */
  copy(from: string, to: string): void {
    const dst = this.pathOf(to);
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    const tmp = `${dst}.${randomBase62(8)}.part`;
    fs.copyFileSync(this.pathOf(from), tmp);
    fs.renameSync(tmp, dst);
  }

  /** Removes a key or a whole prefix (folder). */
  remove(keyOrPrefix: string): void {
    fs.rmSync(this.pathOf(keyOrPrefix), { recursive: true, force: true });
  }
}
