/**
 * Normalization and staging off the main thread. The file path's read pass is CPU-bound JavaScript
 * (parse, normalize, format lines) while DuckDB sits idle, so the main thread parses and maps rows
 * and hands batches to worker threads (stage-worker.ts) that normalize them and return ready staged
 * lines; replies are consumed in batch order, so r stays the row's position in the file.
 * `threads: 0` does the same work in-process (same functions), for environments without workers.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { normalizeMatchInput } from '../normalize/record.ts';
import { stageLines, variantsCache, type StagedLines } from './stage-lines.ts';

export interface StageRequest {
  id: number;
  records: Record<string, unknown>[];
  base: number;
  direct: (bigint | null)[];
  /** Reference date for dob parsing, as epoch ms. */
  today: number;
}

export type StageReply = { id: number; lines: StagedLines; error?: undefined } | { id: number; lines?: undefined; error: string };

export interface StagePool {
  /** Normalizes and formats `records` as rows base, base + 1, ... */
  stage(records: Record<string, unknown>[], base: number, direct: (bigint | null)[], today: Date): Promise<StagedLines>;
  close(): Promise<void>;
}

/**
 * Worker threads by default: one per core, at most 4. Normalizing is most of the read pass's work:
 * at 1M rows on 2 cores one worker left it at 11.4 s, two 9.1 s, three 10.1 s (and +0.4 GiB RSS).
 * Beyond 4 the main thread's parsing is the limit.
 */
export const defaultStageThreads = () => Math.max(1, Math.min(4, os.availableParallelism()));

const nativeTypeScript = Boolean((process.features as { typescript?: string | false }).typescript);

export function createStagePool(threads = defaultStageThreads()): StagePool {
  if (threads <= 0) {
    const varsOf = variantsCache();
    return {
      async stage(records, base, direct, today) {
        const rows = records.map((rec, i) => normalizeMatchInput(rec, { position: base + i + 1, today }));
        return stageLines(rows, base, direct, varsOf);
      },
      async close() {},
    };
  }
  const pending = new Map<number, { resolve: (l: StagedLines) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const workers = Array.from({ length: threads }, () => {
    // No inherited loader flags where Node strips the worker's types itself: tsx's transform (keepNames
    // wraps every closure) made normalizing ~15% slower (read pass 9.1 -> 7.9 s at 1M rows).
    const w = new Worker(new URL('./stage-worker.ts', import.meta.url), { execArgv: nativeTypeScript ? [] : process.execArgv });
    w.on('message', (m: StageReply) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.lines) p?.resolve(m.lines);
      else p?.reject(new Error(`staging worker failed: ${m.error}`));
    });
    w.on('error', failAll);
    w.on('exit', (code) => {
      if (code !== 0) failAll(new Error(`staging worker exited with code ${code}`));
    });
    return w;
  });
  let next = 0;
  return {
    stage(records, base, direct, today) {
      const id = next++;
      return new Promise<StagedLines>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const request: StageRequest = { id, records, base, direct, today: today.getTime() };
        workers[id % workers.length]!.postMessage(request);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
      failAll(new Error('staging pool closed'));
    },
  };
}
