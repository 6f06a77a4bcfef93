/**
 * A ModelWarehouse over one DuckDB connection, for tests of the engine's SQL pieces on small
 * hand-made tables (the integration tests use the real warehouse over a generated graph).
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { streamChunks } from '../../src/graph/duck.ts';
import type { ModelWarehouse } from '../../src/modelling/index.ts';

export interface DuckWarehouse extends ModelWarehouse {
  conn: DuckDBConnection;
  close(): void;
}

export async function duckWarehouse(): Promise<DuckWarehouse> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  return {
    conn,
    async query<T>(sql: string, params?: unknown[]) {
      const reader = await conn.runAndReadAll(sql, params as DuckDBValue[] | undefined);
      return reader
        .getRowObjectsJS()
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))) as T[];
    },
    stream: (sql, onChunk) => streamChunks(conn, sql, onChunk),
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * `persons`: n rows with the catalog's column names and types, NULLs included, drawn by hash so
 * they are the same on every run. `z` is a planted log-odds (homeowner, age, golf, income band and an
 * XOR of homeowner with age > 45 when `xor`), `y` a label drawn from it.
 */
export async function createPersons(wh: DuckWarehouse, n: number, opts: { xor?: boolean } = {}): Promise<void> {
  // One string hash per draw: hash(range, 'tag') with short tags gave correlated draws.
  const u = (f: string) => `((hash('${f}:' || range::VARCHAR) >> 11)::DOUBLE / 9007199254740992.0)`;
  const xor = opts.xor ? `+ 2.5 * ((coalesce(homeowner, false) <> (coalesce(age, 0) > 45))::INT) - 1.25` : '';
  await wh.query(`
    CREATE TABLE persons AS
    WITH b AS (SELECT range AS person_key,
      CASE WHEN ${u('an')} < 0.05 THEN NULL ELSE 18 + floor(${u('a')} * 60)::INT END AS age,
      CASE WHEN ${u('hn')} < 0.03 THEN NULL ELSE ${u('h')} < 0.6 END AS homeowner,
      ['lt_25k', '25k_50k', '50k_75k', '75k_100k', '100k_150k', '150k_250k', '250k_plus'][1 + floor(${u('i')} * 7)::INT] AS income_band,
      (CASE WHEN ${u('g')} < 0.2 THEN 8192 ELSE 0 END + CASE WHEN ${u('f')} < 0.3 THEN 1024 ELSE 0 END
        + CASE WHEN ${u('x')} < 0.1 THEN 4294967296 * 4 ELSE 0 END)::BIGINT AS interests_mask,
      DATE '2000-01-01' + floor(${u('m')} * 9000)::INT AS moved_in,
      CASE WHEN ${u('v')} < 0.4 THEN NULL ELSE 50000 + floor(${u('v2')} * 900000)::INT END AS home_value,
      ['CA', 'TX', 'NY', 'FL', 'WA', 'OH'][1 + floor(${u('s')} * 6)::INT] AS state,
      ${u('y')} AS uy
      FROM range(${n}))
    SELECT *, -2.0 + 0.8 * coalesce(homeowner::INT, 0) + 0.03 * (coalesce(age, 45) - 45) + 1.2 * ((interests_mask >> 13) & 1)
      + 0.2 * list_position(['lt_25k', '25k_50k', '50k_75k', '75k_100k', '100k_150k', '150k_250k', '250k_plus'], income_band) ${xor} AS z
    FROM b`);
  await wh.query(`ALTER TABLE persons ADD COLUMN y BOOLEAN`);
  await wh.query(`UPDATE persons SET y = uy < 1 / (1 + exp(-z))`);
}
