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
import { writeLevels, writeMemberSet, type FileStatements, type RecordLevel } from '../../graph/index.ts';

export function scratchMembersPath(dataDir: string, segmentId: string): string {
  return path.join(dataDir, 'objects', 'segments', segmentId, 'members-v1.parquet');
}

/** The levels file of a scratch member set (beside it). */
export function scratchLevelsPath(membersPath: string): string {
  return path.join(path.dirname(membersPath), 'levels-v1.parquet');
}

/** One matched record of the response: its person and the level and type of its match. */
export type ScratchMatch = RecordLevel;

/** Writes the levels first, then the member set: a member set is never readable without them. */
export async function writeMembersParquet(warehouse: FileStatements, file: string, matches: readonly ScratchMatch[]): Promise<void> {
  await writeLevels(warehouse, scratchLevelsPath(file), matches);
  await writeMemberSet(
    warehouse,
    file,
    matches.map((m) => m.personKey),
  );
}

export function removeMembers(file: string): void {
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
