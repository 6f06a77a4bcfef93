/**
 * Scratch segment members: the distinct matched person keys of one match response, written once as
 * a Parquet file (one BIGINT `person_key` column) under DATA_DIR/objects, where segment counts and
 * exports read it with read_parquet. Written to a temp name and renamed, so a reader never sees half.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lit } from '../../graph/duck.ts';

export interface ParquetWriter {
  query(sql: string): Promise<unknown>;
}

export function scratchMembersPath(dataDir: string, segmentId: string): string {
  return path.join(dataDir, 'objects', 'segments', segmentId, 'members-v1.parquet');
}

export async function writeMembersParquet(warehouse: ParquetWriter, file: string, personKeys: readonly bigint[]): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const keys = [...new Set(personKeys)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const list = keys.map((k) => k.toString()).join(', ');
  await warehouse.query(`COPY (SELECT unnest([${list}]::BIGINT[]) AS person_key) TO ${lit(tmp)} (FORMAT parquet)`);
  fs.renameSync(tmp, file);
}

export function removeMembers(file: string): void {
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
