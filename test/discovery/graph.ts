/**
 * A small generated graph per test file, and its rows read back as plain objects so tests compute
 * expected counts with TypeScript predicates (an oracle independent of the SQL under test).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { generateGraph } from '../../src/graph/generate.ts';
import { readCurrentRelease, releaseFilePath, type ReleaseInfo } from '../../src/graph/releases.ts';

export const GRAPH_PERSONS = 20_000;

export type PersonRow = Record<string, unknown> & { person_key: bigint };

export async function generateTestGraph(dataDir: string, persons = GRAPH_PERSONS): Promise<ReleaseInfo> {
  return generateGraph({ dataDir, persons, seed: 11, releaseDate: '2026-01-01', threads: 1, memoryLimit: '512MB' });
}

/** Every persons row of the current release (20k rows: small enough to hold). */
export async function readPersons(dataDir: string): Promise<PersonRow[]> {
  const release = readCurrentRelease(dataDir)!;
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${releaseFilePath(dataDir, release).replace(/'/g, "''")}' AS g (READ_ONLY)`);
    const reader = await conn.runAndReadAll('SELECT * FROM g.persons ORDER BY person_key');
    return reader.getRowObjectsJS() as PersonRow[];
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

export const countWhere = (rows: PersonRow[], pred: (r: PersonRow) => boolean): number => rows.filter(pred).length;
