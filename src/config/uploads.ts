/**
 * Bounds on what a file-match upload may hold once read (issue 31): a small gzip file can expand to
 * gigabytes, and a file of one endless line makes a parser hold all of it at once. Both are checked
 * while the shard streams, so such a file fails within its first megabytes, not after all of them.
 */
import { intSetting } from './settings.ts';

export interface UploadSettings {
  /**
   * Bytes one shard may expand to after gzip is undone (UPLOAD_MAX_UNCOMPRESSED_BYTES). Default 50 GiB,
   * the most a shard may be uploaded as: gzip never admits more data than a plain upload could carry.
   */
  maxUncompressedBytes: number;
  /**
   * Bytes of the longest line of a csv, json or jsonl shard, and of the longest CSV record
   * (UPLOAD_MAX_LINE_BYTES). Default 1 MiB: a row of identity columns is a few hundred bytes.
   */
  maxLineBytes: number;
}

export const DEFAULT_UPLOAD_SETTINGS: UploadSettings = { maxUncompressedBytes: 50 * 1024 ** 3, maxLineBytes: 1024 ** 2 };

export function uploadSettings(env: NodeJS.ProcessEnv): UploadSettings {
  return {
    maxUncompressedBytes: intSetting(env, 'UPLOAD_MAX_UNCOMPRESSED_BYTES', DEFAULT_UPLOAD_SETTINGS.maxUncompressedBytes, 1024, 2 ** 50),
    maxLineBytes: intSetting(env, 'UPLOAD_MAX_LINE_BYTES', DEFAULT_UPLOAD_SETTINGS.maxLineBytes, 1024, 1024 ** 3),
  };
}
