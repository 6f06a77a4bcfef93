/**
 * The warehouse's dialect: the pieces of SQL text that differ between engines, named once, so that the
 * questions of the door (membership/, member-files.ts) are written in terms a second engine can give
 * its own text for (ClickHouse, issue #34). The engine itself (connections, timeouts, streaming,
 * attaching a release) is `Warehouse` in warehouse.ts.
 *
 * What the service's results depend on is fixed here too: a person's set hash is DuckDB's 64-bit
 * `hash` of the person key, XOR-ed over a set (decision 052); another engine must give the same value
 * for the same key, or every noise layer and threshold would move with the engine.
 */
import { lit } from './duck.ts';

export interface Dialect {
  /** The 64-bit hash of one person, from the persons alias `p` (set hashes are the XOR of these). */
  personHash(alias?: string): string;
  /** `FROM` text of a table read in a sample of about `percent` of its rows (a subset: counts are lower bounds). */
  sampled(table: string, alias: string, percent: number): string;
  /** A Parquet file as a table. */
  parquet(file: string): string;
  /** A headerless or headed CSV file as a table with the given column types. */
  csv(file: string, columns: Readonly<Record<string, string>>, o?: { header?: boolean }): string;
  /** The statement writing a SELECT's result to a Parquet file. */
  copyToParquet(select: string, file: string): string;
}

export const DUCKDB: Dialect = {
  personHash: (alias = 'p') => `hash(${alias}.person_key)`,
  sampled: (table, alias, percent) => {
    const p = Math.min(100, Math.max(0.001, percent));
    return p < 100 ? `${table} ${alias} TABLESAMPLE ${p.toFixed(3)}% (system)` : `${table} ${alias}`;
  },
  parquet: (file) => `read_parquet(${lit(file)})`,
  csv: (file, columns, o = {}) =>
    `read_csv(${lit(file)}, header = ${o.header === true}, quote = '"', escape = '"', columns = {${Object.entries(columns)
      .map(([k, t]) => `${lit(k)}: ${lit(t)}`)
      .join(', ')}})`,
  copyToParquet: (select, file) => `COPY (${select}) TO ${lit(file)} (FORMAT parquet)`,
};
