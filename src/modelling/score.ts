/**
 * Scoring in the warehouse. The compiled model scores every person of the persons table once into a
 * key/score table (16 bytes a person: 160 MB at 10M); holdout metrics and the segment both read it.
 *
 * The segment is a Parquet file of the `targetSize` best-scored candidates, one row per person:
 * `person_key BIGINT, score DOUBLE, rank BIGINT` (1 = best), written to a temp name and renamed, so a
 * reader never sees half a file. It is read like any materialized member set
 * (`read_parquet(path)` -> person_key; src/graph/membership/sql.ts), and the caller names one file
 * per segment version, so earlier versions' scores stay as they were. Equal scores (common with
 * trees) are ordered by a hash of the person key and the seed: stable, and not biased by key order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sqlString } from './features/sources.ts';
import type { ModelWarehouse } from './types.ts';

export async function materializeScores(wh: ModelWarehouse, table: string, persons: string, probability: string): Promise<void> {
  await wh.query(`CREATE TABLE ${table} AS SELECT p.person_key, ${probability} AS score FROM ${persons} p`);
}

export interface SegmentWrite {
  scores: string;
  /** Key table of persons never in the segment (the seed, for similarity). */
  exclude: string | null;
  targetSize: number;
  seed: number;
  membersPath: string;
}

export interface WrittenSegment {
  membersPath: string;
  recordCount: number;
  /** Lowest score in the segment (the cut); null when it is empty. */
  scoreThreshold: number | null;
}

export function tieBreakSql(key: string, seed: number): string {
  return `hash(${key}, ${Math.trunc(seed)}::BIGINT, 'tie')`;
}

export async function writeSegment(wh: ModelWarehouse, o: SegmentWrite): Promise<WrittenSegment> {
  const where = o.exclude ? `WHERE s.person_key NOT IN (SELECT person_key FROM ${o.exclude})` : '';
  const top = `SELECT s.person_key, s.score, ${tieBreakSql('s.person_key', o.seed)} AS tie FROM ${o.scores} s ${where}
    ORDER BY s.score DESC, tie LIMIT ${Math.max(0, Math.trunc(o.targetSize))}`;
  const select = `SELECT person_key, score, row_number() OVER (ORDER BY score DESC, tie) AS rank FROM (${top}) ORDER BY rank`;
  await writeParquet(wh, select, o.membersPath);
  const [row] = await wh.query<{ n: number; cut: number | null }>(
    `SELECT count(*) AS n, min(score) AS cut FROM read_parquet(${sqlString(o.membersPath)})`,
  );
  return { membersPath: o.membersPath, recordCount: Number(row?.n ?? 0), scoreThreshold: row?.cut ?? null };
}

/** Every person's score (person_key, score), for callers that keep the full scored graph per version. */
export async function writeAllScores(wh: ModelWarehouse, scores: string, file: string): Promise<void> {
  await writeParquet(wh, `SELECT person_key, score FROM ${scores} ORDER BY person_key`, file);
}

async function writeParquet(wh: ModelWarehouse, select: string, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await wh.query(`COPY (${select}) TO ${sqlString(tmp)} (FORMAT parquet)`);
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
