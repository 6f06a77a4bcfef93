/**
 * Staging: normalized rows become two relations the candidate SQL joins against the match index,
 *   in_row (r, first, last, first_sx, last_sx, vars, dob, has_email, has_phone, has_addr, zips, direct, house_zips)  one per input row
 *     (first_sx / last_sx: the names' Soundex, computed in JS while staging: in SQL it cost ~5 us a value)
 *   in_key (r, k, kind, unit)                                                       one per blocking key
 * Small batches are inlined as VALUES (no files, no DDL, nothing shared between concurrent
 * requests); large ones and whole files are written as TSV files as rows come (createStageWriter),
 * that DuckDB's parallel CSV reader loads (much faster than millions of appender calls or a giant
 * SQL text). Either way the SQL that consumes them is identical. The lines' text is stage-lines.ts.
 * Keys are staged as their namespaced strings and reduced to 64 bits in SQL (K64_SQL: vectorized,
 * parallel; hashing in JS was ~40% of the file path's JS time); a key string that TSV cannot carry
 * verbatim is reduced in JS instead (column k).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lit } from '../../graph/duck.ts';
import type { NormalizedRecord } from '../normalize/record.ts';
import { K64_SQL, rowKeySources } from './keys.ts';
import { rowFields, stageLines, variantsCache, type StagedLines } from './stage-lines.ts';

/** Above this many rows staging goes through files. */
export const INLINE_MAX_ROWS = 2000;

export interface Staged {
  rowSql: string;
  keySql: string;
  /** Number of staged keys (0: nothing can match). */
  keyCount: number;
  cleanup(): void;
}

// The wrappers turn the flat staged columns into typed ones; the same for VALUES and files.
const ROW_COLS = 'r, first, last, vars, dob, has_email, has_phone, has_addr, zips, direct, first_sx, last_sx, house_zips';
const wrapRows = (src: string) => `SELECT r::INTEGER AS r, first, last, first_sx, last_sx,
  CASE WHEN coalesce(vars, '') = '' THEN []::VARCHAR[] ELSE string_split(vars, '|') END AS first_vars,
  CASE WHEN length(dob) = 10 THEN dob::DATE END AS dob, CASE WHEN length(dob) IN (4, 7) THEN dob END AS dob_part,
  has_email::BOOLEAN AS has_email, has_phone::BOOLEAN AS has_phone, has_addr::BOOLEAN AS has_addr,
  CASE WHEN coalesce(zips, '') = '' THEN []::VARCHAR[] ELSE string_split(zips, '|') END AS zip5s, direct::UBIGINT AS direct,
  CASE WHEN coalesce(house_zips, '') = '' THEN []::VARCHAR[] ELSE string_split(house_zips, '|') END AS house_zips FROM ${src}`;
const wrapKeys = (src: string) => `SELECT r::INTEGER AS r, coalesce(k::UBIGINT, ${K64_SQL('s')}) AS k, kind::UTINYINT AS kind, unit FROM ${src}`;
const sqlStr = (s: string | null) => (s === null ? 'NULL' : lit(s));

export function stageRows(rows: readonly NormalizedRecord[]): StagedFile {
  if (rows.length > INLINE_MAX_ROWS) {
    const writer = createStageWriter(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-match-')), { removeDir: true });
    writer.addLines(stageLines(rows, 0, null, variantsCache()));
    return writer.close();
  }
  const varsOf = variantsCache();
  const fields = rows.map((row) => rowFields(row, varsOf));
  const keys = rows.map(rowKeySources);
  let keyCount = 0;
  for (const ks of keys) keyCount += ks.length;
  const rowValues = fields.map((f, r) =>
    `(${r}, ${sqlStr(f.first)}, ${sqlStr(f.last)}, ${lit(f.vars)}, ${sqlStr(f.dob)}, ${f.hasEmail}, ${f.hasPhone}, ${f.hasAddr}, ${lit(f.zips)}, NULL, ${sqlStr(f.firstSx)}, ${sqlStr(f.lastSx)}, ${lit(f.houseZips)})`);
  const keyValues = keys.flatMap((ks, r) => ks.map((k) => `(${r}, NULL, ${lit(k.s)}, ${k.kind}, ${sqlStr(k.unit)})`));
  // An empty VALUES list is not SQL: a typed row that filters itself out keeps the shape.
  const rowSrc = `(VALUES ${rowValues.join(', ') || `(-1, NULL, NULL, '', NULL, false, false, false, '', NULL, NULL, NULL, '')`}) t(${ROW_COLS})`;
  const keySrc = `(VALUES ${keyValues.join(', ') || `(-1, 0, NULL, 0, NULL)`}) t(r, k, s, kind, unit)`;
  return {
    rowSql: wrapRows(rowSrc), keySql: wrapKeys(keySrc), keyCount, rowCount: rows.length, directCount: 0,
    firstZip: (r) => fields[r]?.spatialZip ?? null,
    firstName: (r) => fields[r]?.first ?? null, lastName: (r) => fields[r]?.last ?? null, cleanup: () => {},
  };
}

/** A file's worth of staged rows (createStageWriter): r runs 0..rowCount-1 in the order added. */
export interface StagedFile extends Staged {
  rowCount: number;
  /** Rows staged with a direct person key (iag_person_id). */
  directCount: number;
  /** The row's first ZIP5 (its spatial ZIP), or null. */
  firstZip(r: number): string | null;
  /**
   * The row's normalized first / last name as staged (what the candidate statement compared): the
   * term-frequency adjustment of an exact name agreement looks its value up here (params.ts Scoring).
   */
  firstName(r: number): string | null;
  lastName(r: number): string | null;
}

const NULL_CELL = '\\N';

/**
 * The staged rows' names, interned: two Int32 ids a row and each distinct name once, so a file's
 * names cost 8 bytes a row plus its distinct names. Read from the rows.tsv lines (fields 2 and 3).
 */
function nameStore() {
  const ids = new Map<string, number>();
  const names: string[] = [];
  let at = new Int32Array(2048);
  const intern = (s: string) => {
    if (s === NULL_CELL) return -1;
    let id = ids.get(s);
    if (id === undefined) { id = names.length; names.push(s); ids.set(s, id); }
    return id;
  };
  return {
    add(r: number, line: string) {
      if (2 * r + 2 > at.length) {
        const grown = new Int32Array(Math.max(2 * r + 2, at.length * 2));
        grown.set(at);
        at = grown;
      }
      const a = line.indexOf('\t');
      const b = line.indexOf('\t', a + 1);
      const c = line.indexOf('\t', b + 1);
      at[2 * r] = intern(line.slice(a + 1, b));
      at[2 * r + 1] = intern(line.slice(b + 1, c));
    },
    get(r: number, which: 0 | 1, rowCount: number): string | null {
      const id = r < rowCount ? at[2 * r + which]! : -1;
      return id >= 0 ? names[id]! : null;
    },
  };
}

export interface StageWriter {
  /** Appends the lines of the next rows (stageLines with base = rowCount; a staging worker's reply). */
  addLines(lines: StagedLines): void;
  readonly rowCount: number;
  close(): StagedFile;
  /** Closes and removes the staged files without using them (a run that failed while reading). */
  discard(): void;
}

/** Lines buffered before a write; small enough to keep memory flat, large enough to be cheap. */
const FLUSH_LINES = 8192;

/**
 * Stages rows into rows.tsv and keys.tsv under `dir` as they come, so a file of any size is staged
 * with constant memory; only each row's spatial ZIP (4 bytes a row) and its interned names (8 bytes a row
 * and each distinct name once) stay in memory.
 */
export function createStageWriter(dir: string, opts: { removeDir?: boolean } = {}): StageWriter {
  fs.mkdirSync(dir, { recursive: true });
  const rowFile = path.join(dir, 'rows.tsv');
  const keyFile = path.join(dir, 'keys.tsv');
  const rowFd = fs.openSync(rowFile, 'w');
  const keyFd = fs.openSync(keyFile, 'w');
  let rowLines: string[] = [];
  let keyLines: string[] = [];
  let zips = new Int32Array(1024);
  const names = nameStore();
  let rowCount = 0;
  let keyCount = 0;
  let directCount = 0;
  const remove = () => {
    if (opts.removeDir) fs.rmSync(dir, { recursive: true, force: true });
    else for (const f of [rowFile, keyFile]) fs.rmSync(f, { force: true });
  };
  const flush = () => {
    if (rowLines.length) fs.writeSync(rowFd, rowLines.join('\n') + '\n');
    if (keyLines.length) fs.writeSync(keyFd, keyLines.join('\n') + '\n');
    rowLines = [];
    keyLines = [];
  };
  const addLines = (lines: StagedLines) => {
    const needed = rowCount + lines.zips.length;
    if (needed > zips.length) {
      const grown = new Int32Array(Math.max(needed, zips.length * 2));
      grown.set(zips);
      zips = grown;
    }
    zips.set(lines.zips, rowCount);
    lines.rows.forEach((l, i) => names.add(rowCount + i, l));
    rowCount = needed;
    keyCount += lines.keys.length;
    directCount += lines.directCount;
    for (const l of lines.rows) rowLines.push(l);
    for (const l of lines.keys) keyLines.push(l);
    if (rowLines.length >= FLUSH_LINES) flush();
  };
  return {
    get rowCount() { return rowCount; },
    addLines,
    discard() {
      fs.closeSync(rowFd);
      fs.closeSync(keyFd);
      remove();
    },
    close() {
      flush();
      fs.closeSync(rowFd);
      fs.closeSync(keyFd);
      const csv = (file: string, cols: string) => `read_csv(${lit(file)}, delim = '\t', header = false, quote = '', escape = '', nullstr = '\\N',
    columns = {${cols}})`;
      const firstZips = zips;
      return {
        rowSql: wrapRows(csv(rowFile, `'r': 'INTEGER', 'first': 'VARCHAR', 'last': 'VARCHAR', 'vars': 'VARCHAR', 'dob': 'VARCHAR',
      'has_email': 'BOOLEAN', 'has_phone': 'BOOLEAN', 'has_addr': 'BOOLEAN', 'zips': 'VARCHAR', 'direct': 'UBIGINT',
      'first_sx': 'VARCHAR', 'last_sx': 'VARCHAR', 'house_zips': 'VARCHAR'`)),
        keySql: wrapKeys(csv(keyFile, `'r': 'INTEGER', 'k': 'UBIGINT', 's': 'VARCHAR', 'kind': 'UTINYINT', 'unit': 'VARCHAR'`)),
        keyCount,
        rowCount,
        directCount,
        firstZip: (r) => (r < rowCount && firstZips[r]! >= 0 ? String(firstZips[r]).padStart(5, '0') : null),
        firstName: (r) => names.get(r, 0, rowCount),
        lastName: (r) => names.get(r, 1, rowCount),
        cleanup: remove,
      };
    },
  };
}
