/**
 * Raw reads of DuckDB result vectors. @duckdb/node-api's value conversion makes a JS value per cell
 * through several calls (getColumns(): ~0.3 s of a 1M-row export for the keys alone); an export or a
 * file's candidate stream reads millions of cells, so it views each vector's memory as a typed array
 * (node-bindings hands the buffer over without copying) and reads the validity mask as 32-bit words. A
 * chunk's memory is valid until the next fetch, so every reader copies what it needs before returning.
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBDataChunk } from '@duckdb/node-api';

/** A column of one chunk: its raw data and which rows are not NULL. */
export interface RawColumn {
  data: Uint8Array;
  /** One bit per row (LSB first), null when every row is valid. */
  validity: Uint32Array | null;
  count: number;
}

export function rawColumn(chunk: DuckDBDataChunk, index: number, bytesPerRow: number): RawColumn {
  const count = chunk.rowCount;
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, index);
  const data = duckdb.vector_get_data(vector, count * bytesPerRow);
  const words = Math.ceil(count / 64) * 2;
  const mask = duckdb.vector_get_validity(vector, words * 4);
  return { data, validity: mask ? new Uint32Array(mask.buffer, mask.byteOffset, words) : null, count };
}

export const isValid = (c: RawColumn, i: number): boolean => validIn(c.validity, i);

export function int32s(c: RawColumn): (number | null)[] {
  const v = new Int32Array(c.data.buffer, c.data.byteOffset, c.count);
  const out = new Array<number | null>(c.count);
  for (let i = 0; i < c.count; i++) out[i] = isValid(c, i) ? v[i]! : null;
  return out;
}

export function float64s(c: RawColumn): (number | null)[] {
  const v = new Float64Array(c.data.buffer, c.data.byteOffset, c.count);
  const out = new Array<number | null>(c.count);
  for (let i = 0; i < c.count; i++) out[i] = isValid(c, i) ? v[i]! : null;
  return out;
}

export function booleans(c: RawColumn): (boolean | null)[] {
  const out = new Array<boolean | null>(c.count);
  for (let i = 0; i < c.count; i++) out[i] = isValid(c, i) ? c.data[i] !== 0 : null;
  return out;
}

export function uint8s(c: RawColumn): (number | null)[] {
  const out = new Array<number | null>(c.count);
  for (let i = 0; i < c.count; i++) out[i] = isValid(c, i) ? c.data[i]! : null;
  return out;
}

/** BIGINT values as a copied int64 array (ids are encoded from it without a BigInt per row). */
export function int64Copy(c: RawColumn): BigInt64Array {
  return new BigInt64Array(c.data.slice(0, c.count * 8).buffer);
}

/** INTEGER values as a copied int32 array (NULLs read as whatever the vector holds: for NOT NULL columns). */
export function int32Copy(c: RawColumn): Int32Array {
  return new Int32Array(c.data.slice(0, c.count * 4).buffer);
}

/** The validity mask copied (null: every row valid), for reading after the chunk is gone. */
export function validityCopy(c: RawColumn): Uint32Array | null {
  return c.validity ? c.validity.slice() : null;
}

/** Whether row i is valid in a copied mask. */
export const validIn = (mask: Uint32Array | null, i: number): boolean => mask === null || ((mask[i >>> 5]! >>> (i & 31)) & 1) === 1;

/**
 * BIGINT bitmasks as (hi, lo) uint32 pairs: masks of up to 63 bits, decoded through a cache, never
 * become BigInts.
 */
export function uint32Pairs(c: RawColumn): Uint32Array {
  return new Uint32Array(c.data.slice(0, c.count * 8).buffer);
}

/**
 * VARCHAR values. A duckdb_string_t is 16 bytes: the length, then up to 12 inline bytes, or a 4-byte
 * prefix and a pointer to the bytes (read through node-bindings).
 */
export function strings(c: RawColumn): (string | null)[] {
  const view = new DataView(c.data.buffer, c.data.byteOffset, c.count * 16);
  const bytes = Buffer.from(c.data.buffer, c.data.byteOffset, c.count * 16);
  const out = new Array<string | null>(c.count);
  for (let i = 0; i < c.count; i++) {
    if (!isValid(c, i)) {
      out[i] = null;
      continue;
    }
    const at = i * 16;
    const length = view.getUint32(at, true);
    if (length <= 12) {
      out[i] = bytes.toString('utf8', at + 4, at + 4 + length);
    } else {
      const far = duckdb.get_data_from_pointer(c.data.buffer as ArrayBuffer, c.data.byteOffset + at + 8, length);
      out[i] = Buffer.from(far.buffer, far.byteOffset, far.byteLength).toString('utf8', 0, length);
    }
  }
  return out;
}
