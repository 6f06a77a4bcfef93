/**
 * m_person held in the process: the micro-batch path's person lookup (point.ts step 2) as a binary search
 * over typed arrays instead of an ART index scan. At 10M persons the scan took about 11 ms for the ~500
 * candidate persons of a 100-record batch (each selected column of each row fetched on its own); the
 * table costs 48 bytes a person (480 MB at 10M) and is loaded once by `matcher.warm()`, so only
 * long-running processes (`ads serve` with MATCH_WARMUP) pay for it. Rows come back exactly as
 * personLookupSql returns them, so the scoring cannot tell the two sources apart (test/matching).
 */

type Row = Record<string, unknown>;
type Stream = (sql: string, onChunk: (columns: unknown[][], rowCount: number) => void | Promise<void>) => Promise<void>;

/** The m_person attributes the point path scores with (point.ts personLookupSql reads the same from the index). */
export const PERSON_COLUMNS = `person_key, household_key, hh_ref, first_name, last_name, nickname, strftime(dob, '%Y-%m-%d') AS dob, zip5, house`;

/** The person columns of PERSON_COLUMNS, in its order; the string ones are dictionary-coded here. */
const STRING_COLUMNS = ['first_name', 'last_name', 'nickname', 'dob', 'zip5', 'house'] as const;

export interface ResidentPersons {
  readonly count: number;
  /** Bytes of the typed arrays (the dictionaries' strings not counted). */
  readonly bytes: number;
  /** The rows of personLookupSql for `keys` (absent keys have none), in the order of `keys`, each once. */
  rows(keys: Iterable<bigint>): Row[];
}

/** A growable column of dictionary codes (-1 = NULL). */
function dictionaryColumn() {
  const codes = new Map<string, number>();
  const values: string[] = [];
  return {
    values,
    code(v: unknown): number {
      if (v === null || v === undefined) return -1;
      const s = String(v);
      let c = codes.get(s);
      if (c === undefined) {
        c = values.length;
        values.push(s);
        codes.set(s, c);
      }
      return c;
    },
  };
}

/** Typed-array bytes a person takes: three 64-bit keys and a 32-bit code per string column. */
export const RESIDENT_BYTES_PER_PERSON = 8 * 3 + 4 * STRING_COLUMNS.length;

const NO_KEY = -(2n ** 63n);

/** Reorders every column by person key (a scan that did not return m_person in key order). */
function sortByKey(n: number, keys: BigInt64Array, wide: BigInt64Array[], narrow: Int32Array[]): void {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  for (const col of [keys, ...wide]) {
    const copy = col.slice(0, n);
    order.forEach((from, to) => {
      col[to] = copy[from]!;
    });
  }
  for (const col of narrow) {
    const copy = col.slice(0, n);
    order.forEach((from, to) => {
      col[to] = copy[from]!;
    });
  }
}

/** Loads m_person of the index attached as `mx` (person_key order). `signal` stops it (then null). */
export async function loadResidentPersons(
  stream: Stream,
  mx: string,
  count: number,
  signal?: AbortSignal,
): Promise<ResidentPersons | null> {
  const keys = new BigInt64Array(count);
  const households = new BigInt64Array(count);
  const refs = new BigInt64Array(count);
  const dicts = STRING_COLUMNS.map(() => dictionaryColumn());
  const codes = STRING_COLUMNS.map(() => new Int32Array(count));
  let n = 0;
  // personLookupSql's expressions, so values match byte for byte. No ORDER BY: m_person is written in key order
  // and a scan keeps it (a sort of 10M rows would also push the ART nodes the warm-up loaded out of DuckDB's
  // buffer pool); the order is checked below and restored if it ever is not.
  const sql = `SELECT ${PERSON_COLUMNS} FROM ${mx}.m_person`;
  let sorted = true;
  await stream(sql, (cols, rows) => {
    if (signal?.aborted) throw new Error('aborted');
    if (n + rows > count) throw new Error(`m_person has more than ${count} rows`);
    const [pk, hh, ref, ...strings] = cols as [unknown[], unknown[], unknown[], ...unknown[][]];
    for (let i = 0; i < rows; i++, n++) {
      keys[n] = BigInt(pk[i] as bigint);
      if (n > 0 && keys[n]! <= keys[n - 1]!) sorted = false;
      households[n] = hh[i] === null ? NO_KEY : BigInt(hh[i] as bigint);
      refs[n] = ref[i] === null ? NO_KEY : BigInt(ref[i] as bigint);
      for (let c = 0; c < STRING_COLUMNS.length; c++) codes[c]![n] = dicts[c]!.code(strings[c]![i]);
    }
  }).catch((error: unknown) => {
    if (!signal?.aborted) throw error;
  });
  if (signal?.aborted) return null;
  if (!sorted) sortByKey(n, keys, [households, refs], codes);
  const find = (k: bigint): number => {
    let lo = 0,
      hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = keys[mid]!;
      if (v === k) return mid;
      if (v < k) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const orNull = (v: bigint) => (v === NO_KEY ? null : v);
  // Only the values stay reachable: the load's string -> code maps (hundreds of thousands of entries) are garbage
  // now, and the collector need not mark them again on every full collection during requests.
  const values = dicts.map((d) => d.values);
  dicts.length = 0; // (the load's callback shares this scope, so the array would keep the maps alive)
  return {
    count: n,
    bytes: count * RESIDENT_BYTES_PER_PERSON,
    rows(wanted) {
      const out: Row[] = [];
      const seen = new Set<bigint>();
      for (const k of wanted) {
        if (seen.has(k)) continue;
        seen.add(k);
        const i = find(k);
        if (i < 0) continue;
        const row: Row = { person_key: keys[i]!, household_key: orNull(households[i]!), hh_ref: orNull(refs[i]!) };
        STRING_COLUMNS.forEach((col, c) => {
          const code = codes[c]![i]!;
          row[col] = code < 0 ? null : values[c]![code]!;
        });
        out.push(row);
      }
      return out;
    },
  };
}
