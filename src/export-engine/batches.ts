/**
 * Export rows out of the warehouse, in their final order, a chunk at a time.
 *
 * 1. The member keys are materialized once, sorted (`..._keys`): the membership SQL may hold costly
 *    subqueries (record-limited segments, Parquet semi-joins) that must not run once per batch.
 * 2. Audience (no matched source): rows are read in person_key order in batches of `batchRows`
 *    members. A batch selects the persons rows of one key range that are members; `persons` is stored
 *    in key order, so zone maps limit each batch to its range. Batch k + 1 runs in DuckDB while batch
 *    k is encoded. Every batch is a materialized result (full 2,048-row chunks): a streamed sparse
 *    result gave one ~200-row chunk per scanned vector, and fetching those cost more than the scan.
 * 3. Matched audience: the source rows are numbered (customer file order; members without a source
 *    row after them, by key), joined to persons once into `..._rows`, and read back in `ord` ranges.
 * 4. With member bases (decision 051, bases.ts), the gated members and their bases are built once into
 *    `..._bases` and joined to every row as `d`: field columns gate on it, and each row's id level is read.
 * Tables live in the warehouse's in-memory catalog under a random name and are dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import type { DuckDBDataChunk, DuckDBMaterializedResult } from '@duckdb/node-api';
import { basesTableSql } from './bases.ts';
import { sqlIdent, sqlLiteral, type OutputColumn } from './columns.ts';
import { int64Copy, rawColumn, strings } from '../graph/index.ts';
import type { ExportMembers, ExportWarehouse, MatchedRowsSource, MemberBases } from './types.ts';

/** One chunk of export rows: the person keys (for tier 01 ids) and each output column's values. */
export interface RowChunk {
  count: number;
  keys: BigInt64Array;
  /** Whether row i has a person key (false for an unmatched input row). */
  hasKey: (i: number) => boolean;
  /** Id of a row without a person key (matched sources' unmatched rows), else null. */
  fallbackIds: (string | null)[] | null;
  /** The level issuing each row's id (null: I), when the export has levels (a matched source's or member bases), else null. */
  levels: (string | null)[] | null;
  /** Values per column of `columns`, in order. */
  values: unknown[][];
}

export interface ChunkSourceOptions {
  warehouse: ExportWarehouse;
  members: ExportMembers;
  /** Output columns selected from persons (alias p), the member bases (alias d) and, for a matched source, from its rows. */
  columns: readonly OutputColumn[];
  matched?: MatchedRowsSource & { rowIdColumn: OutputColumn; echoColumns: readonly OutputColumn[] };
  /** Per-member disclosure, with the bases in bit order (bases.ts). */
  bases?: { of: MemberBases; names: readonly string[] };
  personsTable?: string;
  batchRows?: number;
}

export interface ChunkSource {
  /** Rows the export will hold. */
  total: number;
  chunks(): AsyncGenerator<RowChunk>;
  /** Drops the temporary tables (also after a failure). */
  close(): Promise<void>;
}

const DEFAULT_BATCH_ROWS = 262_144;

export async function openChunkSource(o: ChunkSourceOptions): Promise<ChunkSource> {
  const wh = o.warehouse;
  const token = randomBytes(6).toString('hex');
  const keysTable = `memory.main.${sqlIdent(`export_${token}_keys`)}`;
  const rowsTable = `memory.main.${sqlIdent(`export_${token}_rows`)}`;
  const basesTable = `memory.main.${sqlIdent(`export_${token}_bases`)}`;
  const persons = o.personsTable ?? 'graph.persons';
  const batchRows = o.batchRows ?? DEFAULT_BATCH_ROWS;
  const close = async () => {
    await wh.query(`DROP TABLE IF EXISTS ${keysTable}; DROP TABLE IF EXISTS ${rowsTable}; DROP TABLE IF EXISTS ${basesTable}`);
  };
  try {
    await wh.query(`CREATE TABLE ${keysTable} AS ${memberKeysSql(o.members)}`, o.members.params ?? []);
    let bases: string | null = null;
    if (o.bases) {
      const b = basesTableSql(basesTable, keysTable, o.bases.of, o.bases.names);
      await wh.query(b.sql, b.params);
      bases = basesTable;
    }
    const source = o.matched
      ? await matchedSource(wh, o, o.matched, { keysTable, rowsTable, basesTable: bases }, persons, batchRows)
      : await audienceSource(wh, o, keysTable, bases, persons, batchRows);
    return { ...source, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** The member keys, sorted; `distinct` drops repeats in DuckDB (readMemberKeys drops them itself, cheaper). */
const memberKeysSql = (
  members: ExportMembers,
  distinct = true,
) => `SELECT ${distinct ? 'DISTINCT ' : ''}CAST(person_key AS BIGINT) AS person_key
  FROM (${members.sql}) m WHERE person_key IS NOT NULL ORDER BY person_key`;

/**
 * The distinct member keys, sorted (for rendered rows, which need no persons columns). DuckDB sorts;
 * repeats, now neighbours, are dropped here: half the cost of a DISTINCT over 1M keys.
 */
export async function readMemberKeys(wh: ExportWarehouse, members: ExportMembers): Promise<BigInt64Array> {
  const result = await wh.materialize(memberKeysSql(members, false), members.params ?? []);
  const parts: BigInt64Array[] = [];
  let total = 0;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const keys = int64Copy(rawColumn(chunk, 0, 8));
    parts.push(keys);
    total += keys.length;
  }
  const out = new BigInt64Array(total);
  const halves = new Int32Array(out.buffer);
  let at = 0;
  for (const p of parts) {
    const h = new Int32Array(p.buffer, p.byteOffset, p.length * 2);
    for (let i = 0; i < p.length; i++) {
      const lo = h[2 * i]!;
      const hi = h[2 * i + 1]!;
      if (at > 0 && halves[2 * at - 2] === lo && halves[2 * at - 1] === hi) continue;
      halves[2 * at] = lo;
      halves[2 * at + 1] = hi;
      at++;
    }
  }
  return out.subarray(0, at);
}

/** Boundaries of batches of `batchRows` consecutive rows of `table` ordered by `column`. */
async function batchBounds(
  wh: ExportWarehouse,
  table: string,
  column: string,
  batchRows: number,
): Promise<{ total: number; bounds: [bigint, bigint][] }> {
  const rows = await wh.query<{ b: bigint | number; lo: bigint | number; hi: bigint | number; n: bigint | number }>(`
    SELECT rn // ${batchRows} AS b, min(${column}) AS lo, max(${column}) AS hi, count(*) AS n
    FROM (SELECT ${column}, row_number() OVER (ORDER BY ${column}) - 1 AS rn FROM ${table}) GROUP BY ALL ORDER BY b`);
  return {
    total: rows.reduce((s, r) => s + Number(r.n), 0),
    bounds: rows.map((r) => [BigInt(r.lo), BigInt(r.hi)]),
  };
}

function audienceSource(
  wh: ExportWarehouse,
  o: ChunkSourceOptions,
  keysTable: string,
  basesTable: string | null,
  persons: string,
  batchRows: number,
) {
  const select = ['p.person_key', ...(basesTable ? ['d.lvl'] : []), ...o.columns.flatMap((c) => c.sql)].join(', ');
  const join = basesTable ? `LEFT JOIN ${basesTable} d ON d.person_key = p.person_key` : '';
  const query = ([lo, hi]: [bigint, bigint]) =>
    wh.materialize(`SELECT ${select} FROM ${persons} p ${join}
    WHERE p.person_key BETWEEN ${lo} AND ${hi}
      AND p.person_key IN (SELECT person_key FROM ${keysTable} WHERE person_key BETWEEN ${lo} AND ${hi})
    ORDER BY p.person_key`);
  return batchBounds(wh, keysTable, 'person_key', batchRows).then(({ total, bounds }) => ({
    total,
    chunks: () => readBatches(bounds, query, (chunk) => decodeChunk(chunk, o.columns, { uid: false, lvl: basesTable !== null })),
  }));
}

async function matchedSource(
  wh: ExportWarehouse,
  o: ChunkSourceOptions,
  m: NonNullable<ChunkSourceOptions['matched']>,
  t: { keysTable: string; rowsTable: string; basesTable: string | null },
  persons: string,
  batchRows: number,
) {
  const { keysTable, rowsTable } = t;
  const echo = m.echo ?? [];
  const nulls = (n: number) => Array.from({ length: n }, (_, i) => `NULL::VARCHAR AS e${i}`);
  // A row's own level issues its id (decision 051); NULL without levels (then the member's, if gated).
  const lvl = m.levels ? `CAST(${sqlIdent(m.levels.levelColumn)} AS VARCHAR)` : 'NULL::VARCHAR';
  const src = `SELECT CAST(row_id AS VARCHAR) AS row_id, CAST(person_key AS BIGINT) AS person_key, file_row_number AS pos,
      ${[
        ...echo.map((e, i) => `CAST(${sqlIdent(e.column)} AS VARCHAR) AS e${i}`),
        `${m.unmatchedIdColumn ? `CAST(${sqlIdent(m.unmatchedIdColumn)} AS VARCHAR)` : 'NULL::VARCHAR'} AS uid`,
        `${lvl} AS lvl`,
      ].join(', ')}
    FROM read_parquet(${sqlLiteral(m.path)}, file_row_number = true)`;
  const noLevel = 'NULL::VARCHAR AS lvl';
  const parts = [
    `SELECT 0 AS grp, pos, row_id, person_key, ${[...nulls(echo.length), 'NULL::VARCHAR AS uid', 'lvl'].join(', ')}
       FROM src WHERE person_key IN (SELECT person_key FROM ${keysTable})`,
    `SELECT 1 AS grp, k.person_key AS pos, NULL::VARCHAR AS row_id, k.person_key, ${[...nulls(echo.length), 'NULL::VARCHAR AS uid', noLevel].join(', ')}
       FROM ${keysTable} k WHERE k.person_key NOT IN (SELECT person_key FROM src WHERE person_key IS NOT NULL)`,
  ];
  if (m.includeUnmatched) {
    parts.push(`SELECT 0 AS grp, pos, row_id, NULL::BIGINT AS person_key, ${[...echo.map((_, i) => `e${i}`), 'uid', noLevel].join(', ')}
       FROM src WHERE person_key IS NULL`);
  }
  const fieldSql = o.columns.flatMap((c) => c.sql);
  // Echo columns are selected from the numbered rows `r` (their SQL reads r.e0, r.e1, ...).
  const echoSql = m.echoColumns.flatMap((c) => c.sql);
  await wh.query(`CREATE TABLE ${rowsTable} AS
    WITH src AS (${src}), r AS (${parts.join(' UNION ALL ')})
    SELECT row_number() OVER (ORDER BY r.grp, r.pos) - 1 AS ord, r.person_key, r.uid, ${t.basesTable ? 'coalesce(r.lvl, d.lvl)' : 'r.lvl'} AS lvl,
      CAST(r.row_id AS VARCHAR) AS row_id, ${[...fieldSql, ...echoSql].join(', ')}
    FROM r LEFT JOIN ${persons} p ON p.person_key = r.person_key
    ${t.basesTable ? `LEFT JOIN ${t.basesTable} d ON d.person_key = r.person_key` : ''}
    ORDER BY ord`);
  const names = ['person_key', 'uid', 'lvl', 'row_id', ...[...o.columns, ...m.echoColumns].flatMap((c) => c.sql.map(aliasOf))];
  const query = ([lo, hi]: [bigint, bigint]) =>
    wh.materialize(`SELECT ${names.map(sqlIdent).join(', ')} FROM ${rowsTable} WHERE ord BETWEEN ${lo} AND ${hi} ORDER BY ord`);
  const { total, bounds } = await batchBounds(wh, rowsTable, 'ord', batchRows);
  return {
    total,
    chunks: () =>
      readBatches(bounds, query, (chunk) => decodeChunk(chunk, [m.rowIdColumn, ...o.columns, ...m.echoColumns], { uid: true, lvl: true })),
  };
}

/** The alias of a select-list item `... AS "name"`. */
function aliasOf(item: string): string {
  const match = /AS "((?:[^"]|"")+)"$/.exec(item);
  if (!match) throw new Error(`select item without an alias: ${item}`);
  return match[1]!.replace(/""/g, '"');
}

/** Runs batch k + 1 while batch k's chunks are handed out. */
async function* readBatches(
  bounds: [bigint, bigint][],
  query: (b: [bigint, bigint]) => Promise<DuckDBMaterializedResult>,
  decode: (chunk: DuckDBDataChunk) => RowChunk,
): AsyncGenerator<RowChunk> {
  let next = bounds.length > 0 ? query(bounds[0]!) : null;
  for (let b = 0; b < bounds.length; b++) {
    const result = await next!;
    next = b + 1 < bounds.length ? query(bounds[b + 1]!) : null;
    // A failed prefetch is reported when it is awaited; keep it from being an unhandled rejection meanwhile.
    next?.catch(() => {});
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      yield decode(chunk);
    }
  }
}

/** Layout of a batch chunk: person_key, [uid,] [lvl,] then each column's SQL items (a matched source's row_id first). */
function decodeChunk(chunk: DuckDBDataChunk, columns: readonly OutputColumn[], has: { uid: boolean; lvl: boolean }): RowChunk {
  const keyColumn = rawColumn(chunk, 0, 8);
  const keys = int64Copy(keyColumn);
  const validity = keyColumn.validity ? keyColumn.validity.slice() : null;
  const hasKey = (i: number) => validity === null || ((validity[i >>> 5]! >>> (i & 31)) & 1) === 1;
  let at = 1;
  let fallbackIds: (string | null)[] | null = null;
  let levels: (string | null)[] | null = null;
  if (has.uid) fallbackIds = strings(rawColumn(chunk, at++, 16));
  if (has.lvl) levels = strings(rawColumn(chunk, at++, 16));
  const values: unknown[][] = [];
  for (const c of columns) {
    values.push(c.decode(chunk, at));
    at += c.sql.length;
  }
  return { count: chunk.rowCount, keys, hasKey, fallbackIds, levels, values };
}
