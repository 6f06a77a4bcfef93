/**
 * The read limits of an upload (config/uploads.ts), checked on the bytes as they stream out of the inflater,
 * before any parser sees them: a gzip bomb or a file of one endless line fails within its first megabytes
 * with a code that names the limit, instead of holding the worker while a parser buffers gigabytes.
 */
import { Transform } from 'node:stream';
import type { UploadSettings } from '../../../config/uploads.ts';

/** A data problem in the file itself: fails the match (no retry), message shown to the customer. */
export class FileDataError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const LF = 0x0a;

/** 1073741824 -> "1 GiB", 1536 -> "1536 bytes": limits are set in bytes and mostly whole binary units. */
export function byteSize(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} bytes`;
}

const NEXT =
  'Split the file into shards (shard_count) or fix it, then refresh the segment (POST /v1/segments/{id}/refresh) for new upload URLs.';

const tooLarge = (limits: UploadSettings, what: string) =>
  new FileDataError(
    'FILE_TOO_LARGE_UNCOMPRESSED',
    `${what}: expands to more than ${byteSize(limits.maxUncompressedBytes)} uncompressed, the limit per shard (setting UPLOAD_MAX_UNCOMPRESSED_BYTES). ${NEXT}`,
  );

const lineTooLong = (limits: UploadSettings, what: string, line: number) =>
  new FileDataError(
    'LINE_TOO_LONG',
    `${what}: line ${line} is longer than ${byteSize(limits.maxLineBytes)}, the longest line accepted (setting UPLOAD_MAX_LINE_BYTES). Each row must be on a line of its own. ${NEXT}`,
  );

export const recordTooLong = (limits: UploadSettings, what: string) =>
  new FileDataError(
    'LINE_TOO_LONG',
    `${what}: a record is longer than ${byteSize(limits.maxLineBytes)}, the longest record accepted (setting UPLOAD_MAX_LINE_BYTES). Check for a quote that is never closed. ${NEXT}`,
  );

/** Passes the bytes through unchanged, failing the stream as soon as either limit is passed. */
export function readLimitCheck(limits: UploadSettings, what: string): Transform {
  let total = 0;
  let run = 0; // bytes of the current line so far
  let line = 1;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limits.maxUncompressedBytes) return done(tooLarge(limits, what));
      let from = 0;
      for (let lf = chunk.indexOf(LF); lf >= 0; lf = chunk.indexOf(LF, from)) {
        if (run + lf - from > limits.maxLineBytes) return done(lineTooLong(limits, what, line));
        run = 0;
        from = lf + 1;
        line++;
      }
      run += chunk.length - from;
      if (run > limits.maxLineBytes) return done(lineTooLong(limits, what, line));
      done(null, chunk);
    },
  });
}
