/**
 * Scratch segment members: the distinct matched person keys of one match response, written once as
 * a Parquet file (one BIGINT `person_key` column) under DATA_DIR/objects, where segment counts and
 * exports read it with read_parquet. Written to a temp name and renamed, so a reader never sees half.
 * Beside it, the levels of the same response (`person_key`, `match_level`, `match_type`, one row per
 * matched record, the columns of a file match's rows.parquet): a delivery gates each member's fields
 * by them (decision 051). A member set without its levels file is delivered as if no level were known.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lit } from '../../graph/index.ts';

export interface ParquetWriter {
  query(sql: string): Promise<unknown>;
}

export function scratchMembersPath(dataDir: string, segmentId: string): string {
  return path.join(dataDir, 'objects', 'segments', segmentId, 'members-v1.parquet');
}

/** The levels file of a scratch member set (beside it). */
export function scratchLevelsPath(membersPath: string): string {
  return path.join(path.dirname(membersPath), 'levels-v1.parquet');
}

/** One matched record of the response: its person and the level and type of its match. */
export interface ScratchMatch {
  personKey: bigint;
  level: string;
  type: string | null;
}

/** Writes the levels first, then the member set: a member set is never readable without them. */
export async function writeMembersParquet(warehouse: ParquetWriter, file: string, matches: readonly ScratchMatch[]): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const rows = matches.map(
    (m) => `(${m.personKey.toString()}::BIGINT, ${lit(m.level)}, ${m.type === null ? 'NULL::VARCHAR' : lit(m.type)})`,
  );
  await writeAtomically(
    warehouse,
    scratchLevelsPath(file),
    rows.length
      ? `SELECT * FROM (VALUES ${rows.join(', ')}) v(person_key, match_level, match_type)`
      : 'SELECT NULL::BIGINT AS person_key, NULL::VARCHAR AS match_level, NULL::VARCHAR AS match_type WHERE false',
  );
  const keys = [...new Set(matches.map((m) => m.personKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await writeAtomically(warehouse, file, `SELECT unnest([${keys.map((k) => k.toString()).join(', ')}]::BIGINT[]) AS person_key`);
}

async function writeAtomically(warehouse: ParquetWriter, file: string, select: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await warehouse.query(`COPY (${select}) TO ${lit(tmp)} (FORMAT parquet)`);
  fs.renameSync(tmp, file);
}

export function removeMembers(file: string): void {
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
