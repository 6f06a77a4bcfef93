/**
 * HMAC-SHA256 tags of many 8-byte messages at once (the tier 01 ids of an export), four messages a
 * step in the four 32-bit lanes of WebAssembly SIMD: the same two compressions per message as
 * hmac-key8.ts (the key's pad states computed once), run side by side. An export's ids were mostly
 * this HMAC once rows are copied rather than encoded (docs/decisions/022); four lanes take about a
 * third of the scalar JS time.
 *
 * The module is assembled here, byte by byte, from the SHA-256 rounds (no toolchain, no binary blob
 * in the repository): one function `tags(n)` reads n keys (little-endian int64, as DuckDB and
 * BigInt64Array hold them) and writes, per group of four, the four first digest words then the four
 * second ones. Checked against node:crypto and the scalar HMAC in tests.
 */
import { K, padState } from './hmac-key8.ts';

/** Keys one call takes (a multiple of 4). */
export const SIMD_BATCH = 4096;
/** Memory: inner pad state (8 splatted words), outer pad state, keys, tags. */
const INNER_AT = 0;
const OUTER_AT = 128;
const KEYS_AT = 256;
const TAGS_AT = KEYS_AT + SIMD_BATCH * 8;
const PAGES = Math.ceil((TAGS_AT + SIMD_BATCH * 8) / 65536);

// Opcodes (WebAssembly 2.0 with fixed-width SIMD).
const SIMD = 0xfd;
const op = {
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  i32Add: 0x6a,
  i32LtU: 0x49,
  block: 0x02,
  loop: 0x03,
  brIf: 0x0d,
  br: 0x0c,
  end: 0x0b,
  v128Load: [SIMD, 0x00],
  v128Store: [SIMD, 0x0b],
  v128Const: [SIMD, 0x0c],
  shuffle: [SIMD, 0x0d],
  and: [SIMD, 0x4e],
  or: [SIMD, 0x50],
  xor: [SIMD, 0x51],
  bitselect: [SIMD, 0x52],
  shl: [SIMD, 0xab, 0x01],
  shrU: [SIMD, 0xad, 0x01],
  add: [SIMD, 0xae, 0x01],
};

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s)];

/** The body of tags(n): locals 0 = n, 1 = i (byte offset of the group), then v128 locals from 2. */
function tagsBody(): number[] {
  const code: number[] = [];
  const emit = (...bytes: (number | number[])[]) => {
    for (const b of bytes) Array.isArray(b) ? code.push(...b) : code.push(b);
  };
  // v128 locals: a..h (2-9), w0..w15 (10-25), t1, t2 (26, 27), s0..s7 (28-35: the digest between the compressions).
  const A = 2;
  const W = 10;
  const T1 = 26;
  const T2 = 27;
  const S = 28;
  const get = (l: number) => emit(op.localGet, ...uleb(l));
  const set = (l: number) => emit(op.localSet, ...uleb(l));
  const memarg = (offset: number) => [4, ...uleb(offset)];
  const splat = (v: number) => {
    const b = Buffer.alloc(16);
    for (let i = 0; i < 4; i++) b.writeInt32LE(v | 0, i * 4);
    emit(op.v128Const, ...b);
  };
  const rotr = (l: number, n: number) => {
    get(l);
    emit(op.i32Const, ...sleb(n), op.shrU);
    get(l);
    emit(op.i32Const, ...sleb(32 - n), op.shl, op.or);
  };
  const shr = (l: number, n: number) => {
    get(l);
    emit(op.i32Const, ...sleb(n), op.shrU);
  };
  const a = (k: number) => A + k; // a=0 ... h=7

  /** One SHA-256 compression over w0..w15 from the state in `stateAt`; leaves the final words in S (all 8) or only what `words` asks. */
  const compress = (stateAt: number, words: number) => {
    for (let k = 0; k < 8; k++) {
      emit(op.i32Const, 0, op.v128Load, ...memarg(stateAt + 16 * k));
      set(a(k));
    }
    for (let i = 0; i < 64; i++) {
      const w = W + (i & 15);
      if (i >= 16) {
        // w[i] = w[i-16] + s0(w[i-15]) + w[i-7] + s1(w[i-2])
        const x = W + ((i - 15) & 15);
        const y = W + ((i - 2) & 15);
        get(w);
        rotr(x, 7);
        rotr(x, 18);
        emit(op.xor);
        shr(x, 3);
        emit(op.xor, op.add);
        get(W + ((i - 7) & 15));
        emit(op.add);
        rotr(y, 17);
        rotr(y, 19);
        emit(op.xor);
        shr(y, 10);
        emit(op.xor, op.add);
        set(w);
      }
      // t1 = h + S1(e) + Ch(e, f, g) + K[i] + w[i]
      get(a(7));
      rotr(a(4), 6);
      rotr(a(4), 11);
      emit(op.xor);
      rotr(a(4), 25);
      emit(op.xor, op.add);
      get(a(5));
      get(a(6));
      get(a(4));
      emit(op.bitselect, op.add);
      splat(K[i]!);
      emit(op.add);
      get(w);
      emit(op.add);
      set(T1);
      // t2 = S0(a) + Maj(a, b, c); Maj = bitselect(b, a, a ^ c)
      rotr(a(0), 2);
      rotr(a(0), 13);
      emit(op.xor);
      rotr(a(0), 22);
      emit(op.xor);
      get(a(1));
      get(a(0));
      get(a(0));
      get(a(2));
      emit(op.xor, op.bitselect, op.add);
      set(T2);
      // h=g g=f f=e e=d+t1 d=c c=b b=a a=t1+t2
      get(a(6));
      set(a(7));
      get(a(5));
      set(a(6));
      get(a(4));
      set(a(5));
      get(a(3));
      get(T1);
      emit(op.add);
      set(a(4));
      get(a(2));
      set(a(3));
      get(a(1));
      set(a(2));
      get(a(0));
      set(a(1));
      get(T1);
      get(T2);
      emit(op.add);
      set(a(0));
    }
    for (let k = 0; k < words; k++) {
      emit(op.i32Const, 0, op.v128Load, ...memarg(stateAt + 16 * k));
      get(a(k));
      emit(op.add);
      set(S + k);
    }
  };

  // for (i = 0; i < n * 8; i += 32)
  emit(op.i32Const, 0);
  set(1);
  emit(op.block, 0x40, op.loop, 0x40);
  get(1);
  get(0);
  emit(op.i32Const, 3, 0x74 /* i32.shl */, op.i32LtU, 0x45 /* i32.eqz */, op.brIf, 1);
  // Keys 0,1 and 2,3 of the group: lanes [lo0 hi0 lo1 hi1] [lo2 hi2 lo3 hi3] -> w0 = the hi halves, w1 = the lo halves.
  const lanes = (words: number[]) => words.flatMap((wd) => [wd * 4, wd * 4 + 1, wd * 4 + 2, wd * 4 + 3]);
  get(1);
  emit(op.v128Load, ...memarg(KEYS_AT));
  get(1);
  emit(op.v128Load, ...memarg(KEYS_AT + 16));
  emit(op.shuffle, ...lanes([1, 3, 5, 7]));
  set(W);
  get(1);
  emit(op.v128Load, ...memarg(KEYS_AT));
  get(1);
  emit(op.v128Load, ...memarg(KEYS_AT + 16));
  emit(op.shuffle, ...lanes([0, 2, 4, 6]));
  set(W + 1);
  // Inner block: the message, 0x80, zeros, the length 72 * 8 bits.
  splat(0x80000000);
  set(W + 2);
  for (let k = 3; k < 15; k++) {
    splat(0);
    set(W + k);
  }
  splat(72 * 8);
  set(W + 15);
  compress(INNER_AT, 8);
  // Outer block: the inner digest, 0x80, zeros, the length 96 * 8 bits.
  for (let k = 0; k < 8; k++) {
    get(S + k);
    set(W + k);
  }
  splat(0x80000000);
  set(W + 8);
  for (let k = 9; k < 15; k++) {
    splat(0);
    set(W + k);
  }
  splat(96 * 8);
  set(W + 15);
  compress(OUTER_AT, 2);
  get(1);
  get(S);
  emit(op.v128Store, ...memarg(TAGS_AT));
  get(1);
  get(S + 1);
  emit(op.v128Store, ...memarg(TAGS_AT + 16));
  get(1);
  emit(op.i32Const, 32, op.i32Add);
  set(1);
  emit(op.br, 0, op.end, op.end, op.end);
  // Locals: one i32 (i), 34 v128 (a..h, w0..w15, t1, t2, s0..s7).
  return [
    ...vec([
      [1, 0x7f],
      [34, 0x7b],
    ]),
    ...code,
  ];
}

function moduleBytes(): Uint8Array {
  const body = tagsBody();
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([[0x60, 1, 0x7f, 0]])), // type 0: (i32) -> ()
    ...section(3, vec([[0]])), // function 0 of type 0
    ...section(5, vec([[0, PAGES]])), // one memory of PAGES pages
    ...section(
      7,
      vec([
        [...name('tags'), 0, 0],
        [...name('memory'), 2, 0],
      ]),
    ),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

/** The part of the WebAssembly global this file uses (the project's TypeScript lib has no DOM types). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: { tags: (n: number) => void; memory: { buffer: ArrayBuffer } } };
}
const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;
let compiled: object | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is not available (the scalar HMAC is used). */
function simdModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(moduleBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

export interface HmacKey8Batch {
  /**
   * Tags of `count` keys (at most SIMD_BATCH) read from `keys` (little-endian int64): the first two
   * big-endian digest words of key i at out[2i], out[2i + 1].
   */
  tags(keys: BigInt64Array, count: number, out: Int32Array): void;
}

/** The four-lane HMAC under `key`, or null where WebAssembly SIMD is missing. */
export function hmacKey8Simd(key: Buffer): HmacKey8Batch | null {
  const module = simdModule();
  if (!module) return null;
  const instance = new wasm!.Instance(module, {});
  const memory = instance.exports.memory;
  const run = instance.exports.tags;
  const words = new Int32Array(memory.buffer);
  const inner = padState(key, 0x36);
  const outer = padState(key, 0x5c);
  for (let k = 0; k < 8; k++) {
    for (let lane = 0; lane < 4; lane++) {
      words[(INNER_AT >> 2) + 4 * k + lane] = inner[k]!;
      words[(OUTER_AT >> 2) + 4 * k + lane] = outer[k]!;
    }
  }
  const bytes = new Uint8Array(memory.buffer);
  return {
    tags(keys, count, out) {
      if (count > SIMD_BATCH) throw new RangeError(`at most ${SIMD_BATCH} keys a call`);
      bytes.set(new Uint8Array(keys.buffer, keys.byteOffset, count * 8), KEYS_AT);
      const padded = (count + 3) & ~3;
      bytes.fill(0, KEYS_AT + count * 8, KEYS_AT + padded * 8);
      run(padded);
      const tags = TAGS_AT >> 2;
      for (let i = 0; i < count; i++) {
        const g = tags + (i >> 2) * 8 + (i & 3);
        out[2 * i] = words[g]!;
        out[2 * i + 1] = words[g + 4]!;
      }
    },
  };
}
