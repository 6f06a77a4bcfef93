/**
 * Member files: the sets of persons the service keeps outside the release, as Parquet files the
 * warehouse reads (`read_parquet`) beside the release's tables. A member set is one BIGINT
 * `person_key` column, distinct and in key order; a levels file adds the match level and type of each
 * matched record (decision 051); a file match's rows file holds one row per input row. Each is written
 * to a temporary name and renamed, so that a reader never sees half of one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DUCKDB as sql } from './dialect.ts';
import { lit } from './duck.ts';

/** What member files need of the warehouse: statements over files. */
export interface FileStatements {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

async function copyAtomically(w: FileStatements, target: string, select: string): Promise<void> {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  await w.query(sql.copyToParquet(select, tmp));
  fs.renameSync(tmp, target);
}

/** Writes the distinct keys, in key order, as a member set. */
export async function writeMemberSet(w: FileStatements, target: string, keys: readonly (bigint | string)[]): Promise<void> {
  const csv = `${target}.${process.pid}.csv`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(csv, keys.length ? `${keys.join('\n')}\n` : '');
  try {
    await copyAtomically(
      w,
      target,
      keys.length
        ? `SELECT DISTINCT person_key FROM ${sql.csv(csv, { person_key: 'BIGINT' })} ORDER BY person_key`
        : 'SELECT NULL::BIGINT AS person_key WHERE false',
    );
  } finally {
    fs.rmSync(csv, { force: true });
  }
}

/** The keys of a member set, as decimal text, in key order. */
export async function readMemberSet(w: FileStatements, file: string): Promise<string[]> {
  const rows = await w.query(`SELECT CAST(person_key AS VARCHAR) AS k FROM ${sql.parquet(file)} ORDER BY person_key`);
  return rows.map((r) => String(r.k));
}

/** One matched record's person and the level and type of its match. */
export interface RecordLevel {
  personKey: bigint;
  level: string;
  type: string | null;
}

/** Writes the levels of matched records (`person_key`, `match_level`, `match_type`, one row each). */
export async function writeLevels(w: FileStatements, target: string, levels: readonly RecordLevel[]): Promise<void> {
  const rows = levels.map(
    (m) => `(${m.personKey.toString()}::BIGINT, ${lit(m.level)}, ${m.type === null ? 'NULL::VARCHAR' : lit(m.type)})`,
  );
  await copyAtomically(
    w,
    target,
    rows.length
      ? `SELECT * FROM (VALUES ${rows.join(', ')}) v(person_key, match_level, match_type)`
      : 'SELECT NULL::BIGINT AS person_key, NULL::VARCHAR AS match_level, NULL::VARCHAR AS match_type WHERE false',
  );
}

/** The distinct person keys a members statement selects (the identities a delivery licenses), exact. */
export async function memberKeys(w: FileStatements, members: { sql: string; params: unknown[] }): Promise<bigint[]> {
  const rows = await w.query(
    `SELECT DISTINCT CAST(person_key AS BIGINT) AS k FROM (${members.sql}) m WHERE person_key IS NOT NULL`,
    members.params,
  );
  return rows.map((x) => BigInt(x.k as bigint | number));
}

/** The CSV files a file match writes while it reads its input (src/modules/file-match/results.ts). */
export interface MatchRowFiles {
  /** `r,row_id`: every input row, in file order. */
  ids: string;
  /** `r,person_key,match_level,match_type,match_confidence`: matched rows only. */
  decisions: string;
}

/**
 * ids + decisions -> rows.parquet (row_id, person_key, match_level, match_type, match_confidence; one
 * row per input row, in file order) + members.parquet (the member set); returns the duplicate row_ids
 * (up to 5) and the counts. Unmatched rows never pass through JavaScript twice.
 */
export async function joinMatchRows(w: FileStatements, dir: string, files: MatchRowFiles) {
  const rows = path.join(dir, 'rows.parquet');
  const members = path.join(dir, 'members.parquet');
  const ids = sql.csv(files.ids, { r: 'INTEGER', row_id: 'VARCHAR' }, { header: true });
  const decisions = sql.csv(
    files.decisions,
    { r: 'INTEGER', person_key: 'BIGINT', match_level: 'VARCHAR', match_type: 'VARCHAR', match_confidence: 'DOUBLE' },
    { header: true },
  );
  await w.query(
    sql.copyToParquet(
      `SELECT i.row_id, d.person_key, d.match_level, d.match_type, d.match_confidence
       FROM ${ids} i LEFT JOIN ${decisions} d USING (r) ORDER BY i.r`,
      rows,
    ),
  );
  // The duplicate check and the member set read rows.parquet independently: at once, on two connections of a pool.
  const [dupes, [c]] = await Promise.all([
    w.query(`SELECT row_id FROM ${sql.parquet(rows)} GROUP BY row_id HAVING count(*) > 1 ORDER BY row_id LIMIT 5`),
    w
      .query(
        sql.copyToParquet(`SELECT DISTINCT person_key FROM ${sql.parquet(rows)} WHERE person_key IS NOT NULL ORDER BY person_key`, members),
      )
      .then(() =>
        w.query(
          `SELECT count(*) AS n, count(person_key) AS matched, (SELECT count(*) FROM ${sql.parquet(members)}) AS members FROM ${sql.parquet(rows)}`,
        ),
      ),
  ]);
  return {
    rowsPath: rows,
    membersPath: members,
    duplicates: dupes.map((d) => String(d.row_id)),
    inputCount: Number(c!.n),
    matchCount: Number(c!.matched),
    memberCount: Number(c!.members),
  };
}
