/**
 * Per-row results of one run: streamed to a CSV beside the run's objects while matching, then turned
 * into Parquet by DuckDB in one set-based statement (rows.parquet: row_id, person_key, match_level,
 * match_type, match_confidence) plus the member set (members.parquet: distinct person_key).
 */
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { lit } from '../../graph/duck.ts';
import type { MatchResult } from '../../identity/matcher/index.ts';

const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function createResultsWriter(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  const csv = path.join(dir, 'rows.csv');
  const out = fs.createWriteStream(csv);
  out.write('row_id,person_key,match_level,match_type,match_confidence\n');
  return {
    async write(rowIds: readonly string[], results: readonly MatchResult[]): Promise<void> {
      let chunk = '';
      results.forEach((r, i) => {
        chunk += `${cell(rowIds[i]!)},${r.personKey ?? ''},${r.matchLevel ?? ''},${r.matchType ?? ''},${r.matchConfidence ?? ''}\n`;
      });
      if (!out.write(chunk)) await once(out, 'drain');
    },
    async close(): Promise<string> {
      out.end();
      await once(out, 'finish');
      return csv;
    },
  };
}

export interface ParquetQuery {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** CSV -> rows.parquet + members.parquet; returns the duplicate row_ids (up to 5) and counts. */
export async function finalizeResults(wh: ParquetQuery, dir: string, csv: string) {
  const rows = path.join(dir, 'rows.parquet');
  const members = path.join(dir, 'members.parquet');
  const read = `read_csv(${lit(csv)}, header = true, quote = '"', escape = '"', columns = {'row_id': 'VARCHAR', 'person_key': 'BIGINT', 'match_level': 'VARCHAR', 'match_type': 'VARCHAR', 'match_confidence': 'DOUBLE'})`;
  await wh.query(`COPY (SELECT * FROM ${read}) TO ${lit(rows)} (FORMAT parquet)`);
  const dupes = await wh.query(`SELECT row_id FROM read_parquet(${lit(rows)}) GROUP BY row_id HAVING count(*) > 1 ORDER BY row_id LIMIT 5`);
  await wh.query(`COPY (SELECT DISTINCT person_key FROM read_parquet(${lit(rows)}) WHERE person_key IS NOT NULL ORDER BY person_key) TO ${lit(members)} (FORMAT parquet)`);
  const [c] = await wh.query(`SELECT count(*) AS n, count(person_key) AS matched, (SELECT count(*) FROM read_parquet(${lit(members)})) AS members FROM read_parquet(${lit(rows)})`);
  fs.rmSync(csv, { force: true });
  return {
    rowsPath: rows, membersPath: members, duplicates: dupes.map((d) => String(d.row_id)),
    inputCount: Number(c!.n), matchCount: Number(c!.matched), memberCount: Number(c!.members),
  };
}
