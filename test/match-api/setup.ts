/**
 * A small generated graph shared by the match-api tests (generated once per machine, into a temp
 * directory renamed into place so parallel workers never see half a graph), the fully wired app over
 * it, and a DuckDB reader the tests use to pick persons (an oracle independent of the matcher).
 */
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { RELEASE_LAYOUT, readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { Config } from '../../src/config/index.ts';
import { sharedGraph } from '../helpers/shared-graph.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';

export const PERSONS = 1500;
const GRAPH_DIR = path.join(os.tmpdir(), `ads-match-api-graph-${PERSONS}-5-l${RELEASE_LAYOUT}`);

/** The shared match-api graph (its data directory), for suites that build their own app over it. */
export const ensureGraph = () =>
  sharedGraph(GRAPH_DIR, { persons: PERSONS, seed: 5, releaseDate: '2026-01-01', threads: 1, memoryLimit: '512MB' });

export type Row = Record<string, any>;

export interface MatchTest {
  t: TestApp;
  clock: ManualClock;
  org: TestOrg;
  token: string;
  dataDir: string;
  q(sql: string): Promise<Row[]>;
  call(
    method: string,
    url: string,
    body?: unknown,
    opts?: { token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  match(
    body: Record<string, unknown>,
    opts?: { token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function setup(start = '2026-03-01T12:10:00Z', config: Partial<Config> = {}): Promise<MatchTest> {
  const dataDir = await ensureGraph();
  const clock = new ManualClock(start);
  const t = await testApp({ clock, config: { ...config, dataDir } });
  const org = await createTestOrg(t);
  const token = await org.token();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await inst.connect();
  await conn.run(`ATTACH '${releaseFilePath(dataDir, readCurrentRelease(dataDir)!)}' AS graph (READ_ONLY)`);
  const call: MatchTest['call'] = async (method, url, body, opts = {}) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...bearer(opts.token ?? token), ...opts.headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
  };
  return {
    t,
    clock,
    org,
    token,
    dataDir,
    call,
    q: async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Row[],
    match: (body, opts) => call('POST', '/v1/match', body, opts),
    async close() {
      conn.closeSync();
      inst.closeSync();
      await t.app.close();
    },
  };
}

export const title = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** Adults with an email, distinct surnames, no unit: clean I-level matches by name + email or name + address. */
export async function pickPersons(m: MatchTest, n: number): Promise<Row[]> {
  return m.q(`SELECT p.*, strftime(p.dob, '%Y-%m-%d') AS dobs,
      (SELECT min(email) FROM graph.emails e WHERE e.person_key = p.person_key) AS email
    FROM graph.persons p WHERE age >= 25 AND address_2 IS NULL
      AND EXISTS (SELECT 1 FROM graph.emails e WHERE e.person_key = p.person_key)
    QUALIFY row_number() OVER (PARTITION BY last_name ORDER BY person_key) = 1
    ORDER BY person_key LIMIT ${n}`);
}

export const byNameEmail = (p: Row, extra: Row = {}) => ({
  first_name: title(p.first_name),
  last_name: title(p.last_name),
  email: p.email,
  ...extra,
});
export const byNameAddress = (p: Row, extra: Row = {}) => ({
  first_name: title(p.first_name),
  last_name: title(p.last_name),
  address_1: title(p.address_1),
  city: title(p.city),
  state: p.state,
  zip: p.zip5,
  ...extra,
});
export const NOBODY = { first_name: 'Zyxw', last_name: 'Qqqvvvnonexistent', email: 'zq.nobody.8841@examplemail.com' };
