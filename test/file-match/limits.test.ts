/**
 * Issue 31, point 7: what an upload may expand to and its longest line are bounded while the shard streams. A gzip
 * bomb and an endless line fail their match with a code naming the limit, long before the file is read to its end,
 * and the organization's next match is not held behind them.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip, constants } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_SETTINGS } from '../../src/config/index.ts';
import { people, setup, toCsv, type FileTest, type People } from './helpers.ts';

let f: FileTest;
let p: People;

beforeAll(async () => {
  f = await setup();
  p = await people(f, 20, 5);
}, 120_000);
afterAll(async () => {
  f.t.config.uploads.maxUncompressedBytes = DEFAULT_UPLOAD_SETTINGS.maxUncompressedBytes;
  await f.stopWorker();
  await f.close();
});

/** `head`, then `unit` repeated to `total` bytes, gzipped as it is made: only the compressed bytes are ever held. */
async function gzipBomb(head: string, unit: string, total: number): Promise<Buffer> {
  const chunk = Buffer.from(unit.repeat(Math.floor((1 << 20) / unit.length)));
  let left = total;
  const source = Readable.from(
    (function* () {
      yield Buffer.from(head);
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        yield part;
      }
    })(),
  );
  return buffer(source.pipe(createGzip({ level: constants.Z_BEST_COMPRESSION })));
}

async function expectFailed(c: { segment_id: string }, code: string, setting: string) {
  const done = await f.waitStatus(c.segment_id, ['completed', 'failed'], 60_000);
  expect(done).toMatchObject({ matching_status: 'failed', status: 'failed', error_code: code });
  expect(done.error_message).toContain(setting);
  return done;
}

describe('upload read limits', () => {
  it('fails a gzip bomb of 1 GiB of commas (one line) with LINE_TOO_LONG, naming the limit and its setting', async () => {
    const bomb = await gzipBomb('email,', ',', 1024 ** 3);
    expect(bomb.length).toBeLessThan(2 * 1024 ** 2);
    const c = await f.create({ compression: 'gzip' });
    expect((await f.put(c.upload_url, bomb)).status).toBe(200);
    const done = await expectFailed(c, 'LINE_TOO_LONG', 'UPLOAD_MAX_LINE_BYTES');
    expect(done.error_message).toContain('1 MiB');
    expect(done.progress.rows_read).toBe(0);
  }, 120_000);

  it('fails a gzip bomb of short rows past UPLOAD_MAX_UNCOMPRESSED_BYTES with FILE_TOO_LARGE_UNCOMPRESSED', async () => {
    f.t.config.uploads.maxUncompressedBytes = 4 * 1024 ** 2; // the running service's setting, lowered for this file
    try {
      const row = `zq.bomb@examplemail.com,${'x'.repeat(200)}\n`;
      const bomb = await gzipBomb('email,note\n', row, 256 * 1024 ** 2);
      const c = await f.create({ compression: 'gzip' });
      expect((await f.put(c.upload_url, bomb)).status).toBe(200);
      const done = await expectFailed(c, 'FILE_TOO_LARGE_UNCOMPRESSED', 'UPLOAD_MAX_UNCOMPRESSED_BYTES');
      expect(done.error_message).toContain('4 MiB');
    } finally {
      f.t.config.uploads.maxUncompressedBytes = DEFAULT_UPLOAD_SETTINGS.maxUncompressedBytes;
    }
  }, 120_000);

  it('fails a plain CSV with one line over the limit (LINE_TOO_LONG), and analysis answers the same code', async () => {
    const rows = toCsv([...p.good, ...p.nobody]);
    const long = `${rows}zq.long@examplemail.com,${'y'.repeat(DEFAULT_UPLOAD_SETTINGS.maxLineBytes)},Zyxw,Qqq,99999\n`;
    const c = await f.create({});
    expect((await f.put(c.upload_url, long)).status).toBe(200);
    const done = await expectFailed(c, 'LINE_TOO_LONG', 'UPLOAD_MAX_LINE_BYTES');
    expect(done.error_message).toContain('line 27');

    const staged = await f.create({ hitl: true });
    expect((await f.put(staged.upload_url, `email\n${'z'.repeat(2 * DEFAULT_UPLOAD_SETTINGS.maxLineBytes)}\n`)).status).toBe(200);
    const analyzed = await f.call('POST', `/v1/match/${staged.segment_id}/analyze`);
    expect(analyzed.status).toBe(422);
    expect(analyzed.body).toMatchObject({ error: 'LINE_TOO_LONG' });
    expect(analyzed.body.message).toContain('UPLOAD_MAX_LINE_BYTES');
  }, 120_000);

  it('fails a CSV record over the limit made of short lines (one quoted field over many lines) with LINE_TOO_LONG', async () => {
    const c = await f.create({});
    const quoted = `${toCsv([...p.good, ...p.nobody])}zq.quote,"${'y,\n'.repeat(DEFAULT_UPLOAD_SETTINGS.maxLineBytes / 2)}",Zyxw,Qqq,99999\n`;
    expect((await f.put(c.upload_url, quoted)).status).toBe(200);
    const done = await expectFailed(c, 'LINE_TOO_LONG', 'UPLOAD_MAX_LINE_BYTES');
    expect(done.error_message).toContain('a record is longer than 1 MiB');
  }, 120_000);

  it('resolves a second match of the organization while its first is still running', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = await f.create({});
    f.t.services.fileMatch.hooks.beforeSwap = async (d) => {
      if (d.segmentId === first.segment_id) await held;
    };
    try {
      expect((await f.put(first.upload_url, toCsv([...p.good, ...p.nobody]))).status).toBe(200);
      await f.waitStatus(first.segment_id, ['matching'], 60_000);
      const second = await f.create({});
      expect((await f.put(second.upload_url, toCsv(p.good))).status).toBe(200);
      const done = await f.waitStatus(second.segment_id, ['completed', 'failed'], 60_000);
      expect(done).toMatchObject({ matching_status: 'completed', input_record_count: 20, match_count: 20 });
      expect((await f.call('GET', `/v1/match/file/${first.segment_id}`)).body.matching_status).toBe('matching');
    } finally {
      release();
      f.t.services.fileMatch.hooks.beforeSwap = undefined;
    }
    expect(await f.waitStatus(first.segment_id, ['completed', 'failed'], 60_000)).toMatchObject({
      matching_status: 'completed',
      match_count: 20,
    });
  }, 180_000);

  it('a normal match of the same organization completes after them', async () => {
    const c = await f.create({});
    expect((await f.put(c.upload_url, toCsv([...p.good, ...p.nobody]))).status).toBe(200);
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed'], 60_000);
    expect(done).toMatchObject({ matching_status: 'completed', error_code: null, input_record_count: 25, match_count: 20 });
  }, 120_000);
});
