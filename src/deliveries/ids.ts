/**
 * Tier 01 ids of export chunks, in-process or, when the request asks (`idWorker`), on one worker
 * thread (id-worker.ts) that hashes them (HMAC, AES, base32: ~1 us an id) while the main thread
 * decodes and encodes earlier chunks; the engine asks for a chunk's ids as soon as the chunk arrives
 * and awaits them a few chunks later. Both paths use the same functions (person-id-batch.ts), so the
 * ids are the same. In-process is the default of the row-by-row engine: on the shared 2-core machine
 * (load 12-18) the worker gained nothing and cost ~0.5 CPU s and ~80 MiB per 1M rows
 * (docs/benchmarks.md); it pays only where a core is idle while the main thread encodes.
 *
 * Exports from rendered rows copy rows instead of encoding them, so the HMAC is most of their work:
 * they hash slices of their sorted keys on the worker and the main thread at once (slicedIdHashes).
 */
import { Worker } from 'node:worker_threads';
import { graphPersonIdBatchEncoder, graphPersonIdHashes, graphPersonIdPrefix, personIdsFromHashes } from '../identity/person-id-batch.ts';
import { graphPersonIdKeys } from '../identity/person-id.ts';
import type { ExportPersonIds } from './types.ts';

export interface IdRequest {
  id: number;
  keys: ArrayBuffer;
  count: number;
}

/**
 * All keys of an export at once, cut in slices of `sliceRows`: the worker claims slices in order
 * through `next` (shared with the main thread, which claims the one it needs itself when the worker
 * has not got to it) and replies once per slice it hashed, with `id` the slice number.
 */
export interface IdSlicesRequest {
  slices: true;
  keys: ArrayBuffer;
  count: number;
  sliceRows: number;
  next: SharedArrayBuffer;
}

export type IdReply = { id: number; text: ArrayBuffer; error?: undefined } | { id: number; text?: undefined; error: string };

export interface ChunkIds {
  /** The ids of `count` keys (null where `valid(i)` is false); `keys` may be reused once this returns. */
  of(keys: BigInt64Array, count: number, valid: (i: number) => boolean): Promise<(string | null)[]>;
  close(): Promise<void>;
}

/** The 26-byte hashes of ids (person-id-batch.ts), computed in-process or on the id worker. */
export interface IdHashes {
  /** The organization's id prefix (`ACME_01_`): an id is the prefix and its hash. */
  prefix: string;
  /** Hashes of `count` keys, 26 ASCII bytes each, in a Buffer of their own; `keys` may be reused once this returns. */
  of(keys: BigInt64Array, count: number): Promise<Buffer>;
  close(): Promise<void>;
}

const nativeTypeScript = Boolean((process.features as { typescript?: string | false }).typescript);

export function chunkIds(o: ExportPersonIds, worker: boolean): ChunkIds {
  if (!worker) {
    const encoder = graphPersonIdBatchEncoder(o);
    return { of: async (keys, count, valid) => encoder.encode(keys, count, valid), close: async () => {} };
  }
  const hashes = idHashes(o, true);
  return {
    of: async (keys, count, valid) => personIdsFromHashes(hashes.prefix, await hashes.of(keys, count), count, valid),
    close: () => hashes.close(),
  };
}

export function idHashes(o: ExportPersonIds, worker: boolean): IdHashes {
  const prefix = graphPersonIdPrefix(o.orgClientCode);
  const { encKey, macKey } = graphPersonIdKeys(o);
  if (!worker) {
    const core = graphPersonIdHashes(encKey, macKey);
    return { prefix, of: async (keys, count) => Buffer.from(core.hashes(keys, count)), close: async () => {} };
  }
  const w = idWorker(encKey, macKey);
  let next = 0;
  return {
    prefix,
    of(keys, count) {
      const id = next++;
      // A copy of the keys is transferred: the caller's array stays usable.
      const copy = keys.slice(0, count);
      const reply = w.reply(id);
      const request: IdRequest = { id, keys: copy.buffer, count };
      w.worker.postMessage(request, [copy.buffer]);
      return reply;
    },
    close: () => w.close(),
  };
}

/** Id hashes of one export's sorted keys, slice by slice, shared between the id worker and the main thread. */
export interface SlicedIdHashes {
  prefix: string;
  /** Hands over the keys (once); with `worker`, an id worker thread starts and claims slices as it can. */
  start(keys: BigInt64Array, worker: boolean): void;
  /** The hashes of slice `s` (keys [s * sliceRows, ...)), 26 bytes each; slices are asked for in order, each once. */
  slice(s: number): Promise<Buffer>;
  close(): Promise<void>;
}

/**
 * With a worker, the worker thread hashes slices from the front; the main thread hashes a slice itself
 * when it needs one the worker has not claimed yet (while the worker starts, and whenever it falls
 * behind) and hashes the next unclaimed one while the worker finishes the one it needs, so neither
 * waits for the other while there is work. Without, every slice is hashed in-process when asked for.
 */
export function slicedIdHashes(o: ExportPersonIds, sliceRows: number): SlicedIdHashes {
  const prefix = graphPersonIdPrefix(o.orgClientCode);
  const { encKey, macKey } = graphPersonIdKeys(o);
  const core = graphPersonIdHashes(encKey, macKey);
  let w: ReturnType<typeof idWorker> | null = null;
  const next = new Int32Array(new SharedArrayBuffer(4));
  const replies = new Map<number, Promise<Buffer>>();
  /** Slices that are ready: replies that came, and slices this thread hashed ahead. */
  const ready = new Map<number, Buffer>();
  let keys: BigInt64Array = new BigInt64Array(0);
  let slices = 0;
  const own = (s: number) => {
    w?.forget(s);
    const count = Math.min(sliceRows, keys.length - s * sliceRows);
    return Buffer.from(core.hashes(keys.subarray(s * sliceRows), count));
  };
  const claim = (s: number) => Atomics.compareExchange(next, 0, s, s + 1) === s;
  return {
    prefix,
    start(k, worker) {
      keys = k;
      slices = Math.ceil(k.length / sliceRows);
      if (!worker || k.length === 0) return;
      w = idWorker(encKey, macKey);
      for (let s = 0; s < slices; s++) {
        const reply = w!.reply(s);
        reply.then((text) => ready.set(s, text), () => {});
        replies.set(s, reply);
      }
      const copy = k.slice();
      const request: IdSlicesRequest = { slices: true, keys: copy.buffer, count: k.length, sliceRows, next: next.buffer as SharedArrayBuffer };
      w!.worker.postMessage(request, [copy.buffer]);
    },
    async slice(s) {
      if (!w) return own(s);
      for (;;) {
        const done = ready.get(s);
        if (done) {
          ready.delete(s);
          return done;
        }
        // Unclaimed (the worker is behind): hash it here.
        if (claim(s)) return own(s);
        // The worker is hashing it: hash the next unclaimed slice meanwhile, then look again (after
        // letting the worker's replies in); with none left, wait.
        const u = Atomics.load(next, 0);
        if (u >= slices || !claim(u)) return replies.get(s)!;
        ready.set(u, own(u));
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    close: async () => { await w?.close(); },
  };
}

/** The id worker thread and its replies by id. */
function idWorker(encKey: Buffer, macKey: Buffer) {
  const pending = new Map<number, { resolve: (text: Buffer) => void; reject: (e: Error) => void }>();
  let failed: Error | null = null;
  const failAll = (error: Error) => {
    failed ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  // As stage-pool.ts: inherit the loader flags only where Node does not strip the worker's types itself.
  const worker = new Worker(new URL('./id-worker.ts', import.meta.url), {
    execArgv: nativeTypeScript ? [] : process.execArgv,
    workerData: { encKey: new Uint8Array(encKey), macKey: new Uint8Array(macKey) },
  });
  worker.on('message', (m: IdReply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (!p) return;
    if (m.text) p.resolve(Buffer.from(m.text));
    else p.reject(new Error(`id worker failed: ${m.error}`));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => { if (code !== 0) failAll(new Error(`id worker exited with code ${code}`)); });
  return {
    worker,
    /** The reply to request `id`, once it comes. */
    reply(id: number): Promise<Buffer> {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    /** A reply that will not come (the main thread did that work). */
    forget(id: number): void {
      pending.delete(id);
    },
    async close() {
      failAll(new Error('id worker closed'));
      await worker.terminate();
    },
  };
}
