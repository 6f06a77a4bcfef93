/**
 * Warming a match index before traffic.
 *
 * The micro-batch path (point.ts) looks keys up in the ART indexes of m_key, m_person and m_attr. DuckDB
 * loads ART nodes lazily, on first touch, so a fresh process pays for that on every new key: at 10M
 * persons (66M keys) 300 random keys took 465-1250 ms on the first batches and a p95 of 465 ms over
 * the first 100. After about 30,000 random probes fresh keys take p50 10 ms, p95 16 ms; over HTTP a
 * larger sample (200,000 keys, 100,000 persons; ~14 s at 10M persons) took the p95 of a 100-record
 * POST /v1/match from 267 to 97 ms (docs/benchmarks.md). Row fetches also load whole storage blocks,
 * so the tables are scanned once as well. A long-running process does all this once, in the
 * background, right after start; the index stays resident while DuckDB's memory limit allows.
 */
import { keyLookupSql, personLookupSql } from './point.ts';

type Query = (sql: string) => Promise<Record<string, unknown>[]>;

export interface WarmOptions {
  /** Random m_key entries probed (default 200,000). */
  keys?: number;
  /** Random m_person (and m_attr) entries probed (default 100,000). */
  persons?: number;
  /** Keys per probing statement (default 1,000: big enough to be quick, small enough to stay an index scan). */
  batch?: number;
  /** Stops between statements when aborted (shutdown); the result then says how far it got. */
  signal?: AbortSignal;
  /** Then load m_person into the process for the micro-batch path (resident-persons.ts; default true). */
  residentPersons?: boolean;
  /** ... unless the copy would take more than this (default an eighth of RAM: 3 GiB, 70M persons, on 24 GiB). */
  residentMaxBytes?: number;
}

export interface WarmResult {
  /** Keys and persons actually probed. */
  keys: number;
  persons: number;
  ms: number;
  /** The process's copy of m_person, when loaded (matcher.warm). */
  residentPersons?: { persons: number; bytes: number; ms: number };
}

export async function warmMatchIndex(query: Query, mx: string, o: WarmOptions = {}): Promise<WarmResult> {
  const started = performance.now();
  const batch = o.batch ?? 1000;
  const sample = async (table: string, column: string, n: number) =>
    (await query(`SELECT ${column} AS v FROM ${mx}.${table} USING SAMPLE ${Math.max(0, Math.trunc(n))} ROWS`)).map((r) =>
      BigInt(r.v as bigint),
    );
  const probe = async (values: bigint[], sql: (mx: string, vs: bigint[]) => string) => {
    let done = 0;
    for (let i = 0; i < values.length && !o.signal?.aborted; i += batch) {
      const chunk = values.slice(i, i + batch);
      await query(sql(mx, chunk));
      done += chunk.length;
    }
    return done;
  };
  const keys = o.signal?.aborted ? 0 : await probe(await sample('m_key', 'k', o.keys ?? 200_000), keyLookupSql);
  const personSample = o.signal?.aborted ? [] : await sample('m_person', 'person_key', o.persons ?? 100_000);
  const persons = await probe(personSample, personLookupSql);
  // m_attr (enrichment of matched persons) has its own ART on person_key.
  await probe(personSample, (mx, vs) => `SELECT person_key FROM ${mx}.m_attr WHERE person_key IN (${vs.join(', ')})`);
  // Point fetches read whole storage blocks: load the three tables once (a scan that reads every
  // column) so the rows a match fetches are already in DuckDB's buffer pool.
  for (const table of ['m_key', 'm_person', 'm_attr']) {
    if (!o.signal?.aborted) await query(`SELECT count(*) AS n FROM ${mx}.${table} t WHERE hash(t) = 0`);
  }
  return { keys, persons, ms: Math.round(performance.now() - started) };
}
