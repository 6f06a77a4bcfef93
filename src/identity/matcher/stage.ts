/**
 * Staging: normalized rows become two relations the candidate SQL joins against the match index,
 *   in_row (r, first, last, vars, dob, has_email, has_phone, has_addr, zips)  one per input row
 *   in_key (r, k, kind, unit)                                               one per blocking key
 * Small batches are inlined as VALUES (no files, no DDL, nothing shared between concurrent
 * requests); large ones are written as TSV files that DuckDB's parallel CSV reader loads (much
 * faster than millions of appender calls or a giant SQL text). Either way the SQL that consumes
 * them is identical. Keys are staged as their namespaced strings and reduced to 64 bits in SQL
 * (K64_SQL: vectorized, parallel; hashing in JS was ~40% of the file path's JS time); a key string
 * that TSV cannot carry verbatim is reduced in JS instead (column k).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lit } from '../../graph/duck.ts';
import { nameVariants } from '../normalize/nickname.ts';
import type { NormalizedRecord } from '../normalize/record.ts';
import { K64_SQL, k64, rowKeySources } from './keys.ts';

/** Above this many rows staging goes through files. */
export const INLINE_MAX_ROWS = 2000;

export interface Staged {
  rowSql: string;
  keySql: string;
  /** Number of staged keys (0: nothing can match). */
  keyCount: number;
  cleanup(): void;
}

const clean = (s: string | null) => (s === null ? null : s.replace(/[\t\n\r|\\]/g, ' '));

interface RowFields {
  first: string | null;
  last: string | null;
  vars: string;
  dob: string | null;
  hasEmail: boolean;
  hasPhone: boolean;
  hasAddr: boolean;
  zips: string;
}

function rowFields(row: NormalizedRecord, varsOf: (first: string) => string): RowFields {
  return {
    first: clean(row.name.first),
    last: clean(row.name.last),
    vars: row.name.first ? varsOf(row.name.first) : '',
    dob: row.dob?.iso ?? null,
    hasEmail: row.emailHashes.length > 0,
    hasPhone: row.phoneHashes.length > 0,
    hasAddr: row.addresses.length > 0,
    zips: [...new Set(row.addresses.map((a) => a.zip5).filter((z): z is string => !!z))].join('|'),
  };
}

// The wrappers turn the flat staged columns into typed ones; the same for VALUES and files.
const ROW_COLS = 'r, first, last, vars, dob, has_email, has_phone, has_addr, zips';
const wrapRows = (src: string) => `SELECT r::INTEGER AS r, first, last,
  CASE WHEN coalesce(vars, '') = '' THEN []::VARCHAR[] ELSE string_split(vars, '|') END AS first_vars,
  dob::DATE AS dob, has_email::BOOLEAN AS has_email, has_phone::BOOLEAN AS has_phone, has_addr::BOOLEAN AS has_addr,
  CASE WHEN coalesce(zips, '') = '' THEN []::VARCHAR[] ELSE string_split(zips, '|') END AS zip5s FROM ${src}`;
const wrapKeys = (src: string) => `SELECT r::INTEGER AS r, coalesce(k::UBIGINT, ${K64_SQL('s')}) AS k, kind::UTINYINT AS kind, unit FROM ${src}`;
/** Key strings go to SQL verbatim unless they hold a character the TSV cannot carry. */
const UNSAFE = /[\t\n\r\\]/;

const sqlStr = (s: string | null) => (s === null ? 'NULL' : lit(s));

export function stageRows(rows: readonly NormalizedRecord[]): Staged {
  // nameVariants per distinct first name (a file repeats first names a lot).
  const varsCache = new Map<string, string>();
  const varsOf = (first: string) => {
    let v = varsCache.get(first);
    if (v === undefined) varsCache.set(first, (v = nameVariants(first).map(clean).join('|')));
    return v;
  };
  const fields = rows.map((row) => rowFields(row, varsOf));
  const keys = rows.map(rowKeySources);
  let keyCount = 0;
  for (const ks of keys) keyCount += ks.length;
  if (rows.length <= INLINE_MAX_ROWS) {
    const rowValues = fields.map((f, r) =>
      `(${r}, ${sqlStr(f.first)}, ${sqlStr(f.last)}, ${lit(f.vars)}, ${sqlStr(f.dob)}, ${f.hasEmail}, ${f.hasPhone}, ${f.hasAddr}, ${lit(f.zips)})`);
    const keyValues = keys.flatMap((ks, r) => ks.map((k) => `(${r}, NULL, ${lit(k.s)}, ${k.kind}, ${sqlStr(k.unit)})`));
    // An empty VALUES list is not SQL: a typed row that filters itself out keeps the shape.
    const rowSrc = `(VALUES ${rowValues.join(', ') || `(-1, NULL, NULL, '', NULL, false, false, false, '')`}) t(${ROW_COLS})`;
    const keySrc = `(VALUES ${keyValues.join(', ') || `(-1, 0, NULL, 0, NULL)`}) t(r, k, s, kind, unit)`;
    return { rowSql: wrapRows(rowSrc), keySql: wrapKeys(keySrc), keyCount, cleanup: () => {} };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-match-'));
  const rowFile = path.join(dir, 'rows.tsv');
  const keyFile = path.join(dir, 'keys.tsv');
  const n = (s: string | null) => s ?? '\\N';
  fs.writeFileSync(rowFile, fields.map((f, r) =>
    `${r}\t${n(f.first)}\t${n(f.last)}\t${f.vars}\t${n(f.dob)}\t${f.hasEmail}\t${f.hasPhone}\t${f.hasAddr}\t${f.zips}`).join('\n') + '\n');
  fs.writeFileSync(keyFile, keys.flatMap((ks, r) => ks.map((k) => UNSAFE.test(k.s)
    ? `${r}\t${k64(k.s)}\t\\N\t${k.kind}\t${n(clean(k.unit))}`
    : `${r}\t\\N\t${k.s}\t${k.kind}\t${n(clean(k.unit))}`)).join('\n') + '\n');
  const csv = (file: string, cols: string) => `read_csv(${lit(file)}, delim = '\t', header = false, quote = '', escape = '', nullstr = '\\N',
    columns = {${cols}})`;
  return {
    rowSql: wrapRows(csv(rowFile, `'r': 'INTEGER', 'first': 'VARCHAR', 'last': 'VARCHAR', 'vars': 'VARCHAR', 'dob': 'VARCHAR',
      'has_email': 'BOOLEAN', 'has_phone': 'BOOLEAN', 'has_addr': 'BOOLEAN', 'zips': 'VARCHAR'`)),
    keySql: wrapKeys(csv(keyFile, `'r': 'INTEGER', 'k': 'UBIGINT', 's': 'VARCHAR', 'kind': 'UTINYINT', 'unit': 'VARCHAR'`)),
    keyCount,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
