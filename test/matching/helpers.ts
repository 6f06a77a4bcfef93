/**
 * Test/bench helpers: a small generated graph with its match index, and a warehouse-like client
 * (in-memory DuckDB with the release attached as `graph`, READ_ONLY), the same shape the service's
 * warehouse gives the matcher.
 */
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { streamChunks, streamRawChunks } from '../../src/graph/duck.ts';
import { RELEASE_LAYOUT, readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import { buildMatchIndex } from '../../src/identity/matcher/index-sidecar.ts';
import type { MatchWarehouse } from '../../src/identity/matcher/matcher.ts';
import { sharedGraph } from '../helpers/shared-graph.ts';

export interface TestGraph {
  dataDir: string;
  releaseFile: string;
  indexPath: string;
  warehouse: MatchWarehouse & { close(): void };
}

export async function openWarehouseOn(releaseFile: string, threads = 2): Promise<MatchWarehouse & { close(): void }> {
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  await conn.run(`ATTACH '${releaseFile.replace(/'/g, "''")}' AS graph (READ_ONLY)`);
  return {
    async query(sql: string) {
      return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    },
    stream: (sql, onChunk) => streamChunks(conn, sql, onChunk),
    streamRaw: (sql, onChunk) => streamRawChunks(conn, sql, onChunk),
    close() {
      conn.closeSync();
      inst.closeSync();
    },
  };
}

/** Generates (or reuses) a graph of `persons` under `dir` and its match index. */
export async function testGraph(dir: string, persons: number, seed = 7): Promise<TestGraph> {
  await sharedGraph(dir, { persons, seed, releaseDate: '2025-06-01', threads: 2 });
  const info = readCurrentRelease(dir)!;
  const releaseFile = releaseFilePath(dir, info);
  const indexPath = await buildMatchIndex(releaseFile, { threads: 2 });
  return { dataDir: dir, releaseFile, indexPath, warehouse: await openWarehouseOn(releaseFile) };
}

export const TEST_GRAPH_DIR = path.join(os.tmpdir(), `ads-match-test-${process.getuid?.() ?? 0}-l${RELEASE_LAYOUT}`);
