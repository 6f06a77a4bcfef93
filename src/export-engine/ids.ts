/**
 * Tier 01 ids of export chunks, in-process or, when the request asks (`idWorker`), on one worker
 * thread (id-worker.ts) that hashes them (HMAC, AES, base32: ~1 us an id) while the main thread
 * decodes and encodes earlier chunks; the engine asks for a chunk's ids as soon as the chunk arrives
 * and awaits them a few chunks later. Both paths use the same functions (person-id-batch.ts), so the
 * ids are the same. In-process is the default: on the shared 2-core machine (load 12-18) the worker
 * gained nothing and cost ~0.5 CPU s and ~80 MiB per 1M rows (docs/benchmarks.md); it pays only where
 * a core is idle while the main thread encodes.
 */
import { Worker } from 'node:worker_threads';
import {
  graphPersonIdBatchEncoder,
  graphPersonIdPrefix,
  personIdsFromHashes,
  type PersonIdBatchEncoder,
} from '../identity/person-id-batch.ts';
import { graphPersonIdKeys, type IssuingLevel } from '../identity/person-id.ts';
import type { ExportPersonIds } from './types.ts';

export interface IdRequest {
  id: number;
  keys: ArrayBuffer;
  count: number;
}

export type IdReply = { id: number; text: ArrayBuffer; error?: undefined } | { id: number; text?: undefined; error: string };

export interface ChunkIds {
  /**
   * The ids of `count` keys (null where `valid(i)` is false); `keys` may be reused once this returns.
   * `levels[i]`: the match level issuing row i's id (person-id.ts; null or I: level I).
   */
  of(keys: BigInt64Array, count: number, valid: (i: number) => boolean, levels?: (string | null)[] | null): Promise<(string | null)[]>;
  close(): Promise<void>;
}

const LOWER_LEVELS: readonly IssuingLevel[] = ['H', 'D', 'S', 'A'];

/**
 * Rows of a matched export issued below I get ids under their level's key (person-id.ts), in-process: the
 * I ids of a chunk come from `base` (worker or not), the others are re-encoded per level here.
 */
function withLevels(o: ExportPersonIds, base: ChunkIds): ChunkIds {
  const encoders = new Map<IssuingLevel, PersonIdBatchEncoder>();
  const encoderOf = (level: IssuingLevel) => {
    let e = encoders.get(level);
    if (!e) encoders.set(level, (e = graphPersonIdBatchEncoder({ ...o, level })));
    return e;
  };
  return {
    async of(keys, count, valid, levels) {
      const present = levels ? LOWER_LEVELS.filter((level) => levels.slice(0, count).includes(level)) : [];
      if (!levels || present.length === 0) return base.of(keys, count, valid);
      const isLower = (i: number) => present.includes(levels[i] as IssuingLevel);
      // Encoded before `base` answers (the caller may reuse `keys` once this returns), only for the levels present.
      const lower = new Map(present.map((level) => [level, encoderOf(level).encode(keys, count, (i) => valid(i) && levels[i] === level)]));
      const pending = base.of(keys, count, (i) => valid(i) && !isLower(i));
      const ids = await pending;
      for (let i = 0; i < count; i++) if (isLower(i)) ids[i] = lower.get(levels[i] as IssuingLevel)![i]!;
      return ids;
    },
    close: () => base.close(),
  };
}

const nativeTypeScript = Boolean((process.features as { typescript?: string | false }).typescript);

export function chunkIds(o: ExportPersonIds, worker: boolean): ChunkIds {
  return withLevels(o, levelIChunkIds(o, worker));
}

function levelIChunkIds(o: ExportPersonIds, worker: boolean): ChunkIds {
  if (!worker) {
    const encoder = graphPersonIdBatchEncoder(o);
    return { of: async (keys, count, valid) => encoder.encode(keys, count, valid), close: async () => {} };
  }
  const prefix = graphPersonIdPrefix(o.orgClientCode);
  const { encKey, macKey } = graphPersonIdKeys(o);
  const pending = new Map<
    number,
    { count: number; valid: (i: number) => boolean; resolve: (ids: (string | null)[]) => void; reject: (e: Error) => void }
  >();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  // As stage-pool.ts: inherit the loader flags only where Node does not strip the worker's types itself.
  const w = new Worker(new URL('./id-worker.ts', import.meta.url), {
    execArgv: nativeTypeScript ? [] : process.execArgv,
    workerData: { encKey: new Uint8Array(encKey), macKey: new Uint8Array(macKey) },
  });
  w.on('message', (m: IdReply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (!p) return;
    if (m.text) p.resolve(personIdsFromHashes(prefix, Buffer.from(m.text), p.count, p.valid));
    else p.reject(new Error(`id worker failed: ${m.error}`));
  });
  w.on('error', failAll);
  w.on('exit', (code) => {
    if (code !== 0) failAll(new Error(`id worker exited with code ${code}`));
  });
  let next = 0;
  return {
    of(keys, count, valid) {
      const id = next++;
      // A copy of the keys is transferred: the caller's array stays usable.
      const copy = keys.slice(0, count);
      return new Promise((resolve, reject) => {
        pending.set(id, { count, valid, resolve, reject });
        const request: IdRequest = { id, keys: copy.buffer, count };
        w.postMessage(request, [copy.buffer]);
      });
    },
    async close() {
      failAll(new Error('id worker closed'));
      await w.terminate();
    },
  };
}
