/**
 * Staging: normalized rows become two relations the candidate SQL joins against the match index,
 *   in_row (r, first, last, first_sx, last_sx, vars, dob, has_email, has_phone, has_addr, zips, direct, house_zips)  one per input row
 *     (on the file path, one per row with a block key or a direct key: no statement reads the others)
 *     (first_sx / last_sx: the names' Soundex, computed in JS while staging: in SQL it cost ~5 us a value)
 *   in_key (r, k, kind, unit)                                                       one per blocking key
 *   (a file keeps its street keys, KIND.street, apart in streets.tsv: only the street anchor statement reads them)
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
import { lit } from '../../graph/index.ts';
import type { NormalizedRecord } from '../normalize/record.ts';
import { K64_SQL, KIND, type KeySource } from './keys.ts';
import { matchKeySources } from './row-evidence.ts';
import { NULL_CELL, rowFields, stageLines, variantsCache, type StagedLines } from './stage-lines.ts';

/** Above this many rows staging goes through files. */
export const INLINE_MAX_ROWS = 2000;

export interface Staged {
  rowSql: string;
  keySql: string;
  /** Number of keys keySql gives (0: nothing can match). */
  keyCount: number;
  /** The street keys (KIND.street) for the street anchor statement: keySql itself, or a file of them alone. */
  streetKeySql: string;
  /** Number of keys streetKeySql gives of that kind (0: no row is on a street). */
  streetCount: number;
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
const wrapKeys = (src: string) =>
  `SELECT r::INTEGER AS r, coalesce(k::UBIGINT, ${K64_SQL('s')}) AS k, kind::UTINYINT AS kind, unit FROM ${src}`;
const KEY_COLUMNS = `'r': 'INTEGER', 'k': 'UBIGINT', 's': 'VARCHAR', 'kind': 'UTINYINT', 'unit': 'VARCHAR'`;
const sqlStr = (s: string | null) => (s === null ? 'NULL' : lit(s));

/** Stages `rows` with the blocks `keysOf` gives: the matcher's (default), or every block (model fitting). */
export function stageRows(rows: readonly NormalizedRecord[], keysOf: (row: NormalizedRecord) => KeySource[] = matchKeySources): StagedFile {
  if (rows.length > INLINE_MAX_ROWS) {
    const writer = createStageWriter(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-match-')), { removeDir: true });
    writer.addLines(stageLines(rows, 0, null, variantsCache(), keysOf));
    return writer.close();
  }
  const varsOf = variantsCache();
  const fields = rows.map((row) => rowFields(row, varsOf));
  const keys = rows.map(keysOf);
  let keyCount = 0;
  let streetCount = 0;
  for (const ks of keys) {
    for (const k of ks) {
      if (k.kind === KIND.street) streetCount++;
      else keyCount++;
    }
  }
  const rowValues = fields.map(
    (f, r) =>
      `(${r}, ${sqlStr(f.first)}, ${sqlStr(f.last)}, ${lit(f.vars)}, ${sqlStr(f.dob)}, ${f.hasEmail}, ${f.hasPhone}, ${f.hasAddr}, ${lit(f.zips)}, NULL, ${sqlStr(f.firstSx)}, ${sqlStr(f.lastSx)}, ${lit(f.houseZips)})`,
  );
  const keyValues = keys.flatMap((ks, r) => ks.map((k) => `(${r}, NULL, ${lit(k.s)}, ${k.kind}, ${sqlStr(k.unit)})`));
  // An empty VALUES list is not SQL: a typed row that filters itself out keeps the shape.
  const rowSrc = `(VALUES ${rowValues.join(', ') || `(-1, NULL, NULL, '', NULL, false, false, false, '', NULL, NULL, NULL, '')`}) t(${ROW_COLS})`;
  const keySrc = `(VALUES ${keyValues.join(', ') || `(-1, 0, NULL, 0, NULL)`}) t(r, k, s, kind, unit)`;
  return {
    rowSql: wrapRows(rowSrc),
    keySql: wrapKeys(keySrc),
    keyCount: keyCount + streetCount,
    streetKeySql: wrapKeys(keySrc),
    streetCount,
    rowCount: rows.length,
    directCount: 0,
    firstZip: (r) => fields[r]?.spatialZip ?? null,
    firstName: (r) => fields[r]?.first ?? null,
    lastName: (r) => fields[r]?.last ?? null,
    cleanup: () => {},
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

/**
 * The staged rows' names as the staging replies carry them (StagedLines.names: one tab-separated string per run
 * of rows), split one run at a time when asked: the matcher asks in order of r, so each run is split once.
 * A file's names cost about their own bytes (some 14 a row, against 8 and each distinct name once when they were
 * interned row by row on the main thread, which cost 1.5 s a million rows), held as one string per batch.
 */
function nameStore() {
  const bases: number[] = [];
  const runs: string[] = [];
  let split = -1;
  let parts: string[] = [];
  const runOf = (r: number) => {
    let lo = 0;
    let hi = bases.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bases[mid]! <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    add(base: number, names: string) {
      bases.push(base);
      runs.push(names);
    },
    get(r: number, which: 0 | 1, rowCount: number): string | null {
      if (r < 0 || r >= rowCount || runs.length === 0) return null;
      const run = split >= 0 && r >= bases[split]! && (split + 1 === bases.length || r < bases[split + 1]!) ? split : runOf(r);
      if (run !== split) {
        split = run;
        parts = runs[run]!.split('\t');
      }
      const v = parts[2 * (r - bases[run]!) + which];
      return v === undefined || v === NULL_CELL ? null : v;
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

function writeAll(fd: number, bytes: Uint8Array) {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at);
}

/** Bytes buffered before a write; small enough to keep memory flat, large enough to be cheap. */
const FLUSH_BYTES = 4 << 20;

/**
 * Stages rows into rows.tsv and keys.tsv under `dir` as they come, so a file of any size is staged
 * with constant memory; only each row's spatial ZIP (4 bytes a row) and its names stay in memory.
 */
export function createStageWriter(dir: string, opts: { removeDir?: boolean } = {}): StageWriter {
  fs.mkdirSync(dir, { recursive: true });
  const rowFile = path.join(dir, 'rows.tsv');
  const keyFile = path.join(dir, 'keys.tsv');
  const streetFile = path.join(dir, 'streets.tsv');
  const files = [rowFile, keyFile, streetFile];
  const fds = files.map((f) => fs.openSync(f, 'w'));
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let zips = new Int32Array(1024);
  const names = nameStore();
  let rowCount = 0;
  let keyCount = 0;
  let streetCount = 0;
  let directCount = 0;
  const remove = () => {
    if (opts.removeDir) fs.rmSync(dir, { recursive: true, force: true });
    else for (const f of files) fs.rmSync(f, { force: true });
  };
  const closeFiles = () => {
    for (const fd of fds) fs.closeSync(fd);
  };
  // Replies are appended as they come, (rows, keys, streets) in turn in `pending`, written once enough is buffered.
  const flush = () => {
    for (let i = 0; i < pending.length; i++) writeAll(fds[i % 3]!, pending[i]!);
    pending = [];
    pendingBytes = 0;
  };
  const addLines = (lines: StagedLines) => {
    const needed = rowCount + lines.rowCount;
    if (needed > zips.length) {
      const grown = new Int32Array(Math.max(needed, zips.length * 2));
      grown.set(zips);
      zips = grown;
    }
    zips.set(lines.zips, rowCount);
    if (lines.rowCount) names.add(rowCount, lines.names);
    rowCount = needed;
    keyCount += lines.keyCount;
    streetCount += lines.streetCount;
    directCount += lines.directCount;
    pending.push(lines.rows, lines.keys, lines.streets);
    pendingBytes += lines.rows.length + lines.keys.length + lines.streets.length;
    if (pendingBytes >= FLUSH_BYTES) flush();
  };
  return {
    get rowCount() {
      return rowCount;
    },
    addLines,
    discard() {
      closeFiles();
      remove();
    },
    close() {
      flush();
      closeFiles();
      const csv = (
        file: string,
        cols: string,
      ) => `read_csv(${lit(file)}, delim = '\t', header = false, quote = '', escape = '', nullstr = '\\N',
    columns = {${cols}})`;
      const firstZips = zips;
      return {
        rowSql: wrapRows(
          csv(
            rowFile,
            `'r': 'INTEGER', 'first': 'VARCHAR', 'last': 'VARCHAR', 'vars': 'VARCHAR', 'dob': 'VARCHAR',
      'has_email': 'BOOLEAN', 'has_phone': 'BOOLEAN', 'has_addr': 'BOOLEAN', 'zips': 'VARCHAR', 'direct': 'UBIGINT',
      'first_sx': 'VARCHAR', 'last_sx': 'VARCHAR', 'house_zips': 'VARCHAR'`,
          ),
        ),
        keySql: wrapKeys(csv(keyFile, KEY_COLUMNS)),
        keyCount,
        streetKeySql: wrapKeys(csv(streetFile, KEY_COLUMNS)),
        streetCount,
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
