/**
 * Per-row results of one run, written beside the run's objects while resolving:
 *   ids.csv        (r, row_id)   every input row, in file order, during the read pass
 *   decisions.csv  (r, person_key, match_level, match_type, match_confidence)   matched rows only
 * then joined by the warehouse (graph `joinMatchRows`) into rows.parquet, one row per input row, and
 * the member set members.parquet.
 */
import fs from 'node:fs';
import path from 'node:path';
import { joinMatchRows, type FileStatements, type MatchRowFiles } from '../../graph/index.ts';
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

export type ResultFiles = MatchRowFiles;

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

/** ids + decisions -> rows.parquet + members.parquet (graph `joinMatchRows`); the CSV files are removed. */
export async function finalizeResults(wh: FileStatements, dir: string, files: ResultFiles) {
  const out = await joinMatchRows(wh, dir, files);
  for (const f of [files.ids, files.decisions]) fs.rmSync(f, { force: true });
  return out;
}
