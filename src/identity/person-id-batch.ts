/**
 * Tier 01 ids for many person keys at once (exports): the same ids as `graphPersonIdEncoder`
 * (person-id.ts), computed per batch instead of per row:
 * - the 8-byte tag is an HMAC over precomputed pad states, four keys at a time in WebAssembly SIMD
 *   (hmac-key8-simd.ts) or one at a time in JS (hmac-key8.ts), never a createHmac per key;
 * - all blocks of a batch go through ONE AES-256-ECB `update` call (ECB without padding encrypts each
 *   16-byte block on its own, so this equals one call per block);
 * - base32 writes ASCII bytes through a 1,024-entry table of two-character pairs, then slices one
 *   string per id out of a single latin1 decode.
 * Keys arrive the way DuckDB hands a BIGINT column over: a little-endian int64 buffer, read as
 * uint32 halves so no BigInt is made per row.
 */
import { createCipheriv, type Cipheriv } from 'node:crypto';
import { hmacKey8 } from './hmac-key8.ts';
import { hmacKey8Simd, SIMD_BATCH } from './hmac-key8-simd.ts';
import { assertClientCode, graphPersonIdKeys, type IssuingLevel } from './person-id.ts';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** PAIRS[v] for a 10-bit v: its two base32 characters as ASCII codes (hi << 8 | lo). */
const PAIRS = Uint16Array.from({ length: 1024 }, (_, v) => (B32.charCodeAt(v >> 5) << 8) | B32.charCodeAt(v & 31));
/** A 16-byte block is 128 bits: 26 base32 characters, the last one carrying 3 bits and 2 zero bits. */
const HASH_CHARS = 26;

export interface PersonIdBatchEncoder {
  /**
   * Ids for `count` keys read from `keys` (int64 little-endian, as in a DuckDB BIGINT vector),
   * skipping positions where `valid(i)` is false (their entry is null).
   */
  encode(keys: BigInt64Array, count: number, valid?: (i: number) => boolean): (string | null)[];
}

/**
 * The 26-character hashes of `count` keys as ASCII, 26 bytes each, in one Buffer (valid until the
 * next call): the part of an id that costs (HMAC, AES, base32). Runs in an export's id worker too.
 */
export interface PersonIdHashes {
  hashes(keys: BigInt64Array, count: number): Buffer;
}

/**
 * Keys are the two tier 01 keys of one organization (graphPersonIdKeys). Tags come four at a time from
 * the WebAssembly SIMD HMAC (hmac-key8-simd.ts) where it runs, else one at a time from the JS one.
 */
export function graphPersonIdHashes(encKey: Buffer, macKey: Buffer, o: { simd?: boolean } = {}): PersonIdHashes {
  const simd = o.simd === false ? null : hmacKey8Simd(macKey);
  const hmac = hmacKey8(macKey);
  const cipher: Cipheriv = createCipheriv('aes-256-ecb', encKey, null).setAutoPadding(false);
  const tags = new Int32Array(2 * SIMD_BATCH);
  let blocks = Buffer.alloc(16 * 2048);
  let text = Buffer.alloc(HASH_CHARS * 2048);
  return {
    hashes(keys, count) {
      if (blocks.length < count * 16) {
        blocks = Buffer.alloc(count * 16);
        text = Buffer.alloc(count * HASH_CHARS);
      }
      const halves = new Uint32Array(keys.buffer, keys.byteOffset, count * 2);
      const view = new DataView(blocks.buffer, blocks.byteOffset, count * 16);
      for (let from = 0; from < count; from += SIMD_BATCH) {
        const n = Math.min(SIMD_BATCH, count - from);
        if (simd) simd.tags(keys.subarray(from), n, tags);
        for (let j = 0; j < n; j++) {
          const i = from + j;
          const lo = halves[2 * i]!;
          const hi = halves[2 * i + 1]!;
          if (!simd) hmac.tag(hi, lo, tags.subarray(2 * j, 2 * j + 2));
          const at = i * 16;
          view.setUint32(at, hi);
          view.setUint32(at + 4, lo);
          view.setInt32(at + 8, tags[2 * j]!);
          view.setInt32(at + 12, tags[2 * j + 1]!);
        }
      }
      const sealed = cipher.update(blocks.subarray(0, count * 16));
      for (let i = 0; i < count; i++) writeBase32(sealed, i * 16, text, i * HASH_CHARS);
      return text.subarray(0, count * HASH_CHARS);
    },
  };
}

/** The ids of `count` hashes (26 ASCII bytes each): the client code prefix plus each hash; null where `valid(i)` is false. */
export function personIdsFromHashes(prefix: string, text: Buffer, count: number, valid?: (i: number) => boolean): (string | null)[] {
  const all = text.toString('latin1', 0, count * HASH_CHARS);
  const out = new Array<string | null>(count);
  for (let i = 0; i < count; i++) {
    out[i] = valid && !valid(i) ? null : prefix + all.substring(i * HASH_CHARS, (i + 1) * HASH_CHARS);
  }
  return out;
}

/** The id prefix of an organization's tier 01 ids (`ACME_01_`); checks the client code. */
export function graphPersonIdPrefix(orgClientCode: string): string {
  assertClientCode(orgClientCode);
  return `${orgClientCode}_01_`;
}

/** `level`: the match level issuing the ids (person-id.ts; default I). */
export function graphPersonIdBatchEncoder(o: {
  orgId: string;
  orgClientCode: string;
  secret: string | Buffer;
  level?: IssuingLevel;
}): PersonIdBatchEncoder {
  const prefix = graphPersonIdPrefix(o.orgClientCode);
  const { encKey, macKey } = graphPersonIdKeys(o);
  const core = graphPersonIdHashes(encKey, macKey);
  return {
    encode: (keys, count, valid) => personIdsFromHashes(prefix, core.hashes(keys, count), count, valid),
  };
}

/** Base32 (RFC 4648 alphabet, no padding) of 16 bytes at `src[from]` into 26 ASCII bytes at `dst[to]`. */
function writeBase32(src: Buffer, from: number, dst: Buffer, to: number): void {
  // Thirteen 10-bit groups cover 130 bits: the 128 of the block and two zero bits at the end.
  let acc = 0;
  let bits = 0;
  let o = to;
  for (let i = 0; i < 16; i++) {
    acc = ((acc << 8) | src[from + i]!) & 0x3ffff;
    bits += 8;
    if (bits >= 10) {
      const pair = PAIRS[(acc >>> (bits - 10)) & 1023]!;
      dst[o++] = pair >> 8;
      dst[o++] = pair & 255;
      bits -= 10;
    }
  }
  // 128 = 12 * 10 + 8: eight bits remain, padded with two zero bits to the last group.
  const pair = PAIRS[(acc << (10 - bits)) & 1023]!;
  dst[o++] = pair >> 8;
  dst[o] = pair & 255;
}
