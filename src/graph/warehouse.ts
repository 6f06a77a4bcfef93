/**
 * Warehouse client: one in-memory DuckDB instance per process that ATTACHes the current release file
 * READ_ONLY as `graph` (queries say `graph.persons`). It re-reads the pointer at most every
 * `pointerCheckMs` (or on `refresh()`) and re-attaches when it changed; release files are never written.
 * DuckDB runs queries of different connections of one instance in parallel, but one connection runs one
 * query at a time, so queries go through a small pool of connections.
 */
import fs from 'node:fs';
import {
  DuckDBInstance,
  DuckDBTypeId,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBMaterializedResult,
  type DuckDBValue,
} from '@duckdb/node-api';
import { WarehouseTimeoutError, WarehouseUnavailableError } from './errors.ts';
import { defaultMemoryLimit, lit, streamChunks, streamRawChunks } from './duck.ts';
import { readCurrentRelease, releaseFilePath, type ReleaseInfo } from './releases.ts';

export type Row = Record<string, unknown>;

/** The narrow read view of the warehouse most callers need (counts, catalog checks, lookups). */
export interface WarehouseReader {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<Record<string, unknown>[]>;
  /** The release queries currently run against; throws WarehouseUnavailableError when there is none. */
  release(): ReleaseInfo | Promise<ReleaseInfo>;
}

export interface QueryOptions {
  /**
   * Interrupt the statement past this many ms (DuckDB stops between vectors) and fail with
   * WarehouseTimeoutError. Interactive questions (counts, breakdowns, lookups) set it; jobs do not.
   */
  timeoutMs?: number;
}

export interface Warehouse {
  query<T extends Row = Row>(sql: string, params?: unknown[] | Record<string, unknown>, options?: QueryOptions): Promise<T[]>;
  /**
   * Runs `sql` and hands its result to `onChunk` a chunk at a time (columns of DuckDB values: BIGINT
   * as bigint, INTEGER as number), so a result of millions of rows never sits whole in memory.
   */
  stream(sql: string, onChunk: (columns: unknown[][], rowCount: number) => void | Promise<void>): Promise<void>;
  /** stream() with the raw chunks (graph/vectors.ts reads them), each valid until the next. */
  streamRaw(sql: string, onChunk: (chunk: DuckDBDataChunk) => void | Promise<void>): Promise<void>;
  /**
   * Runs `sql` and returns its whole result for the caller to read chunk by chunk (raw vectors, as
   * the export engine does). The connection goes back to the pool at once: a materialized result
   * does not need it.
   */
  materialize(sql: string, params?: unknown[] | Record<string, unknown>): Promise<DuckDBMaterializedResult>;
  /** Connections in the pool: statements that can run at once. */
  readonly connections: number;
  /** The release queries currently run against (re-checks the pointer first if due). */
  release(): Promise<ReleaseInfo>;
  /** Re-reads the pointer now and switches release if it changed. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenWarehouseOptions {
  dataDir: string;
  memoryLimit?: string;
  threads?: number;
  connections?: number;
  pointerCheckMs?: number;
  /** Told when the process attaches a release (first use and every switch), for the log. */
  onAttach?: (release: ReleaseInfo, previous: ReleaseInfo | null) => void;
}

function toJs(value: unknown, typeId?: DuckDBTypeId): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value instanceof Date && typeId === DuckDBTypeId.DATE) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.map((v) => toJs(v));
  return value;
}

export async function openWarehouse(o: OpenWarehouseOptions): Promise<Warehouse> {
  const instance = await DuckDBInstance.create(':memory:', {
    // Half of RAM up to 12 GB by default: at 10M persons the match index's lookup structures alone
    // take about 3 GB once warm, and evicting them made micro-batch matches 3-4x slower under 4 GB.
    memory_limit: o.memoryLimit ?? defaultMemoryLimit(),
    threads: String(o.threads ?? 2),
    // Integer GROUP BYs whose key range fits in this many bits use a perfect hash table (no hashing,
    // no probing). The default (12) is below the default breakdown key's range (about 15 bits), and
    // the breakdown GROUP BY runs on most counts: 53 -> 34 ms at 10M persons.
    perfect_ht_threshold: '18',
  });
  const poolSize = o.connections ?? 4;
  const idle: DuckDBConnection[] = [];
  for (let i = 0; i < poolSize; i++) idle.push(await instance.connect());
  const waiters: Array<(c: DuckDBConnection) => void> = [];
  const checkMs = o.pointerCheckMs ?? 2000;
  let attached: ReleaseInfo | null = null;
  let lastCheck = 0;
  let inflight = 0;
  let switching: Promise<void> | null = null;
  let drained: (() => void) | null = null;

  const acquire = (): Promise<DuckDBConnection> =>
    idle.length > 0 ? Promise.resolve(idle.pop()!) : new Promise((resolve) => waiters.push(resolve));
  const releaseConn = (c: DuckDBConnection): void => {
    const next = waiters.shift();
    if (next) next(c);
    else idle.push(c);
  };

  async function attach(info: ReleaseInfo): Promise<void> {
    const file = releaseFilePath(o.dataDir, info);
    if (!fs.existsSync(file)) throw new WarehouseUnavailableError('release_missing');
    // Wait for running queries: DETACH under a running scan would fail them.
    if (inflight > 0)
      await new Promise<void>((resolve) => {
        drained = resolve;
      });
    const c = await acquire();
    try {
      const previous = attached;
      if (attached) await c.run('DETACH graph');
      attached = null;
      await c.run(`ATTACH ${lit(file)} AS graph (READ_ONLY)`);
      attached = info;
      o.onAttach?.(info, previous);
    } catch (cause) {
      throw new WarehouseUnavailableError('release_missing', { cause });
    } finally {
      releaseConn(c);
    }
  }

  async function check(force: boolean): Promise<void> {
    if (switching) return switching;
    if (!force && attached && Date.now() - lastCheck < checkMs) return;
    lastCheck = Date.now();
    const current = readCurrentRelease(o.dataDir);
    if (!current) throw new WarehouseUnavailableError('no_release');
    if (attached && attached.file === current.file) {
      if (!fs.existsSync(releaseFilePath(o.dataDir, current))) throw new WarehouseUnavailableError('release_missing');
      return;
    }
    switching = attach(current).finally(() => {
      switching = null;
    });
    return switching;
  }

  /** Runs `work` on a pooled connection against the current release (waits for a release switch). */
  async function withConnection<T>(work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    await check(false);
    if (switching) await switching;
    inflight++;
    const c = await acquire();
    try {
      return await work(c);
    } catch (cause) {
      if (attached && !fs.existsSync(releaseFilePath(o.dataDir, attached)))
        throw new WarehouseUnavailableError('release_missing', { cause });
      throw cause;
    } finally {
      releaseConn(c);
      inflight--;
      if (inflight === 0 && drained) {
        const d: () => void = drained;
        drained = null;
        d();
      }
    }
  }

  /** Interrupts the connection's statement when it outlives the timeout (DuckDB stops it between vectors). */
  async function bounded<T>(c: DuckDBConnection, limit: number | undefined, run: () => Promise<T>): Promise<T> {
    if (!limit) return run();
    let fired = false;
    // An interrupt that lands before the engine starts the statement is dropped, so it repeats until
    // the statement settles.
    const timer = setInterval(() => {
      fired = true;
      c.interrupt();
    }, limit);
    try {
      return await run();
    } catch (cause) {
      throw fired ? new WarehouseTimeoutError(limit, { cause }) : cause;
    } finally {
      clearInterval(timer);
    }
  }

  return {
    connections: poolSize,
    query<T extends Row = Row>(sql: string, params?: unknown[] | Record<string, unknown>, options?: QueryOptions): Promise<T[]> {
      return withConnection(async (c) => {
        const reader = await bounded(c, options?.timeoutMs, () =>
          c.runAndReadAll(sql, params as DuckDBValue[] | Record<string, DuckDBValue> | undefined),
        );
        const names = reader.columnNames();
        const types = reader.columnTypes().map((t) => t.typeId);
        return reader.getRowsJS().map((r) => {
          const row: Row = {};
          names.forEach((n, i) => {
            row[n] = toJs(r[i], types[i]);
          });
          return row as T;
        });
      });
    },
    stream(sql, onChunk) {
      return withConnection((c) => streamChunks(c, sql, onChunk));
    },
    streamRaw(sql, onChunk) {
      return withConnection((c) => streamRawChunks(c, sql, onChunk));
    },
    materialize(sql, params) {
      return withConnection((c) => c.run(sql, params as DuckDBValue[] | Record<string, DuckDBValue> | undefined));
    },
    async release() {
      await check(false);
      return attached!;
    },
    async refresh() {
      await check(true);
    },
    async close() {
      for (const c of idle) c.closeSync();
      instance.closeSync();
    },
  };
}
