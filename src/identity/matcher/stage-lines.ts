/**
 * The text of staged rows (stage.ts): one rows.tsv line per normalized row that has a blocking key (or a direct
 * key) and one keys.tsv line per blocking key. Pure and free of DuckDB, so the staging worker (stage-worker.ts) formats lines
 * with exactly the code the in-process writer uses.
 */
import { nameVariants } from '../normalize/nickname.ts';
import { comparedDob, localityZips, recordZips, type NormalizedRecord } from '../normalize/record.ts';
import { k64, KIND, rowHouseZips, soundex, type KeySource } from './keys.ts';
import { matchKeySources } from './row-evidence.ts';

/** TSV cells cannot carry tabs, newlines, the list separator or backslashes. */
export const clean = (s: string | null) => (s === null ? null : s.replace(/[\t\n\r|\\]/g, ' '));
/** Key strings go to SQL verbatim unless they hold a character the TSV cannot carry. */
const UNSAFE = /[\t\n\r\\]/;
const NULL = '\\N';
const n = (s: string | null) => s ?? NULL;

export interface RowFields {
  first: string | null;
  last: string | null;
  /** Soundex codes of the two names (the surname's phonetic level, either way round). */
  firstSx: string | null;
  lastSx: string | null;
  vars: string;
  dob: string | null;
  hasEmail: boolean;
  hasPhone: boolean;
  hasAddr: boolean;
  /** Locality ZIP5s, '|'-separated: the record's own, or its city's (localityZips). */
  zips: string;
  /** The spatial ZIP: the first ZIP5 the record itself gives (never one of its city's), or null. */
  spatialZip: string | null;
  /** The `house` address level's "<zip5>:<house>" values (keys.ts rowHouseZips), '|'-separated. */
  houseZips: string;
}

/** The first ZIP5 the record itself gives (never one of its city's), or null. */
const spatialZipOf = (row: NormalizedRecord) => recordZips(row)[0] ?? null;

export function rowFields(row: NormalizedRecord, varsOf: (first: string) => string): RowFields {
  const zips = localityZips(row);
  return {
    first: clean(row.name.first),
    last: clean(row.name.last),
    firstSx: soundex(row.name.first),
    lastSx: soundex(row.name.last),
    vars: row.name.first ? varsOf(row.name.first) : '',
    // A whole date, or a partial one ("YYYY-MM", "YYYY"): stage.ts splits them by length.
    dob: comparedDob(row),
    hasEmail: row.emailHashes.length > 0,
    hasPhone: row.phoneHashes.length > 0,
    hasAddr: row.addresses.length > 0 || zips.length > 0,
    zips: zips.join('|'),
    spatialZip: spatialZipOf(row),
    houseZips: rowHouseZips(row).join('|'),
  };
}

/** nameVariants per distinct first name (a file repeats first names a lot). */
export function variantsCache() {
  const cache = new Map<string, string>();
  return (first: string) => {
    let v = cache.get(first);
    if (v === undefined) cache.set(first, (v = nameVariants(first).map(clean).join('|')));
    return v;
  };
}

/**
 * A run of consecutive staged rows, ready to append: the rows.tsv and keys.tsv lines as UTF-8 bytes (each line
 * ends in a newline), so a staging worker hands them over without copying and the writer appends them as they are.
 */
export interface StagedLines {
  rows: Uint8Array;
  keys: Uint8Array;
  /** The street keys (KIND.street), which only the street anchor statement reads, apart from the others. */
  streets: Uint8Array;
  rowCount: number;
  keyCount: number;
  streetCount: number;
  /** The rows' first and last names as staged (NULL_CELL when absent), tab-separated: 2 * rowCount values. */
  names: string;
  /** Each row's first ZIP5 as a number (-1: none): its spatial ZIP. */
  zips: Int32Array;
  directCount: number;
}

/** The cell of a staged name that is absent. */
export const NULL_CELL = NULL;

const utf8 = new TextEncoder();
const text = (lines: string[]) => utf8.encode(lines.length ? lines.join('\n') + '\n' : '');

/**
 * Formats `rows` staged as r = base, base + 1, ...; `direct[i]` is row i's direct person key. `keysOf`: the blocks
 * of a row, those the matcher looks up (row-evidence.ts) unless a caller (model fitting) wants every block.
 */
export function stageLines(
  rows: readonly NormalizedRecord[],
  base: number,
  direct: readonly (bigint | string | null)[] | null,
  varsOf: (first: string) => string,
  keysOf: (row: NormalizedRecord) => KeySource[] = matchKeySources,
): StagedLines {
  const rowLines: string[] = [];
  const keyLines: string[] = [];
  const streetLines: string[] = [];
  const names: string[] = [];
  const zips = new Int32Array(rows.length);
  let directCount = 0;
  rows.forEach((row, i) => {
    const r = base + i;
    const d = direct?.[i] ?? null;
    if (d !== null) directCount++;
    // The candidate and direct statements are all that read a row's line: a row without a block key (other than
    // its street's) or a direct key has none (row-evidence.ts leaves a fifth of a mixed list without keys).
    let read = d !== null;
    for (const k of keysOf(row)) {
      if (k.kind !== KIND.street) read = true;
      (k.kind === KIND.street ? streetLines : keyLines).push(
        UNSAFE.test(k.s)
          ? `${r}\t${k64(k.s)}\t${NULL}\t${k.kind}\t${n(clean(k.unit))}`
          : `${r}\t${NULL}\t${k.s}\t${k.kind}\t${n(clean(k.unit))}`,
      );
    }
    const f = read ? rowFields(row, varsOf) : null;
    if (f)
      rowLines.push(
        `${r}\t${n(f.first)}\t${n(f.last)}\t${f.vars}\t${n(f.dob)}\t${f.hasEmail}\t${f.hasPhone}\t${f.hasAddr}\t${f.zips}\t${d ?? NULL}\t${n(f.firstSx)}\t${n(f.lastSx)}\t${f.houseZips}`,
      );
    names.push(n(f ? f.first : clean(row.name.first)), n(f ? f.last : clean(row.name.last)));
    const spatialZip = f ? f.spatialZip : spatialZipOf(row);
    zips[i] = spatialZip ? Number(spatialZip) : -1;
  });
  return {
    rows: text(rowLines),
    keys: text(keyLines),
    streets: text(streetLines),
    rowCount: rows.length,
    keyCount: keyLines.length,
    streetCount: streetLines.length,
    names: names.join('\t'),
    zips,
    directCount,
  };
}
