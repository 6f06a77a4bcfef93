/**
 * A short-lived DuckDB instance that builds one release file. Release files are written once by one
 * process under a temp name, checkpointed, closed and only then renamed into place.
 */
import fs from 'node:fs';
import os from 'node:os';
import { DuckDBInstance, type DuckDBConnection, type DuckDBDataChunk } from '@duckdb/node-api';

export interface ReleaseWriter {
  conn: DuckDBConnection;
  run(sql: string): Promise<void>;
  scalar<T = unknown>(sql: string): Promise<T>;
  close(): Promise<void>;
}

/**
 * Runs `sql` on `conn` and hands the result to `onChunk` one data chunk (up to 2,048 rows) at a
 * time, as columns of DuckDB values, so a result of millions of rows never sits whole in memory.
 */
export async function streamChunks(
  conn: DuckDBConnection,
  sql: string,
  onChunk: (columns: unknown[][], rowCount: number) => void | Promise<void>,
): Promise<void> {
  await streamRawChunks(conn, sql, (chunk) => onChunk(chunk.getColumns(), chunk.rowCount));
}

/** streamChunks with the chunks themselves, for readers of raw vectors (graph/vectors.ts); each is valid until the next. */
export async function streamRawChunks(
  conn: DuckDBConnection,
  sql: string,
  onChunk: (chunk: DuckDBDataChunk) => void | Promise<void>,
): Promise<void> {
  const result = await conn.stream(sql);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) await onChunk(chunk);
}

/** Rows per row group in release files (a multiple of DuckDB's 2,048-row vector). */
export const RELEASE_ROW_GROUP_SIZE = 16_384;

/** A DuckDB memory limit that leaves room for Node and other processes: half of RAM, capped at 12 GB. */
export function defaultMemoryLimit(): string {
  // Half of RAM, at most 12 GB: the write stage of a 10M graph failed at 4 and 6 GB and needed about
  // 10 GB (sorting the whole persons table by key); smaller graphs use far less.
  const gb = Math.max(1, Math.min(12, Math.floor(os.totalmem() / 2 ** 30 / 2)));
  return `${gb}GB`;
}

export async function openReleaseWriter(
  tmpPath: string,
  opts: { memoryLimit?: string; threads?: number; preserveInsertionOrder?: boolean } = {},
): Promise<ReleaseWriter> {
  for (const p of [tmpPath, `${tmpPath}.wal`]) if (fs.existsSync(p)) fs.rmSync(p);
  // The release file is ATTACHed (not opened as the main database) because row group size is an
  // ATTACH option. 16,384-row groups (default 122,880) give zone maps 7.5x finer granularity: at 10M
  // persons a city IN list over the geography-sorted discovery table drops from 49 to 19 ms, and key
  // lookups in persons read fewer rows; full scans cost the same.
  const instance = await DuckDBInstance.create(':memory:', {
    temp_directory: `${tmpPath}.tmp`,
    memory_limit: opts.memoryLimit ?? defaultMemoryLimit(),
    threads: String(opts.threads ?? Math.max(1, os.cpus().length)),
    // Stored order comes from explicit ORDER BYs, which hold either way. Preserving insertion order
    // makes DuckDB buffer big INSERTs in memory (a 10M graph failed to pin blocks at 6 GB); only the
    // importer needs it, for `row_number() OVER ()` = file order.
    preserve_insertion_order: String(opts.preserveInsertionOrder ?? false),
  });
  const conn = await instance.connect();
  await conn.run(`ATTACH ${lit(tmpPath)} AS release (ROW_GROUP_SIZE ${RELEASE_ROW_GROUP_SIZE})`);
  await conn.run('USE release');
  return {
    conn,
    async run(sql) {
      await conn.run(sql);
    },
    async scalar<T>(sql: string) {
      const reader = await conn.runAndReadAll(sql);
      return reader.getRowsJS()[0]?.[0] as T;
    },
    async close() {
      await conn.run('CHECKPOINT release');
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** SQL string literal. */
export function lit(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** SQL list literal of strings. */
export function litList(values: readonly string[]): string {
  return `[${values.map(lit).join(', ')}]`;
}
