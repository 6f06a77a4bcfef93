/**
 * Per-row results of one run, written beside the run's objects while resolving:
 *   ids.csv        (r, row_id)   every input row, in file order, during the read pass
 *   decisions.csv  (r, person_key, match_level, match_type, match_confidence)   matched rows only
 * then joined by DuckDB in one set-based statement into rows.parquet (row_id, person_key,
 * match_level, match_type, match_confidence; one row per input row, in file order) plus the member
 * set (members.parquet: distinct person_key). Unmatched rows never pass through JavaScript twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lit } from '../../graph/index.ts';
import type { StagedDecision } from '../../identity/matcher/index.ts';

const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Lines buffered before a write (constant memory whatever the file size). */
const FLUSH_LINES = 8192;

function lineFile(file: string, header: string) {
  const fd = fs.openSync(file, 'w');
  let lines: string[] = [header];
  const flush = () => {
    if (lines.length) fs.writeSync(fd, lines.join('\n') + '\n');
    lines = [];
  };
  return {
    push(line: string) {
      lines.push(line);
      if (lines.length >= FLUSH_LINES) flush();
    },
    close() {
      flush();
      fs.closeSync(fd);
    },
  };
}

export interface ResultFiles {
  ids: string;
  decisions: string;
}

export function createResultsWriter(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  const files: ResultFiles = { ids: path.join(dir, 'ids.csv'), decisions: path.join(dir, 'decisions.csv') };
  const ids = lineFile(files.ids, 'r,row_id');
  const decisions = lineFile(files.decisions, 'r,person_key,match_level,match_type,match_confidence');
  return {
    rowId(r: number, rowId: string) {
      ids.push(`${r},${cell(rowId)}`);
    },
    decision(d: StagedDecision) {
      decisions.push(`${d.r},${d.personKey},${d.matchLevel},${d.matchType},${d.matchConfidence}`);
    },
    close(): ResultFiles {
      ids.close();
      decisions.close();
      return files;
    },
  };
}

export interface ParquetQuery {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** ids + decisions -> rows.parquet + members.parquet; returns the duplicate row_ids (up to 5) and counts. */
export async function finalizeResults(wh: ParquetQuery, dir: string, files: ResultFiles) {
  const rows = path.join(dir, 'rows.parquet');
  const members = path.join(dir, 'members.parquet');
  const csv = (file: string, columns: string) => `read_csv(${lit(file)}, header = true, quote = '"', escape = '"', columns = {${columns}})`;
  await wh.query(`COPY (
    SELECT i.row_id, d.person_key, d.match_level, d.match_type, d.match_confidence
    FROM ${csv(files.ids, `'r': 'INTEGER', 'row_id': 'VARCHAR'`)} i
    LEFT JOIN ${csv(files.decisions, `'r': 'INTEGER', 'person_key': 'BIGINT', 'match_level': 'VARCHAR', 'match_type': 'VARCHAR', 'match_confidence': 'DOUBLE'`)} d USING (r)
    ORDER BY i.r) TO ${lit(rows)} (FORMAT parquet)`);
  // The duplicate check and the member set read rows.parquet independently: at once, on two connections of a pool.
  const [dupes, [c]] = await Promise.all([
    wh.query(`SELECT row_id FROM read_parquet(${lit(rows)}) GROUP BY row_id HAVING count(*) > 1 ORDER BY row_id LIMIT 5`),
    wh
      .query(
        `COPY (SELECT DISTINCT person_key FROM read_parquet(${lit(rows)}) WHERE person_key IS NOT NULL ORDER BY person_key) TO ${lit(members)} (FORMAT parquet)`,
      )
      .then(() =>
        wh.query(
          `SELECT count(*) AS n, count(person_key) AS matched, (SELECT count(*) FROM read_parquet(${lit(members)})) AS members FROM read_parquet(${lit(rows)})`,
        ),
      ),
  ]);
  for (const f of [files.ids, files.decisions]) fs.rmSync(f, { force: true });
  return {
    rowsPath: rows,
    membersPath: members,
    duplicates: dupes.map((d) => String(d.row_id)),
    inputCount: Number(c!.n),
    matchCount: Number(c!.matched),
    memberCount: Number(c!.members),
  };
}
