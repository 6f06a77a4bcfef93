/**
 * Integration match collections at scale (decision 050): capturing a run's N matched identities into a
 * collection (as the refresh job does), the collection count (no filter, and by run with a date range),
 * the member set of a segment made from the collection (keys read, Parquet written by DuckDB), and the
 * expiry of all N after the retention. Real stores: embedded PGlite, or PostgreSQL with BENCH_DATABASE_URL.
 *
 *   npx tsx bench/collections.ts [--identities 200000] [--runs 4]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDatabase } from '../src/db/database.ts';
import { collectionStore } from '../src/modules/integrations/collections-store.ts';

const { values } = parseArgs({ options: { identities: { type: 'string' }, runs: { type: 'string' } } });
const N = Number(values.identities ?? 200_000);
const RUNS = Number(values.runs ?? 4);
const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-collections-'));
const database = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL || null, dataDir });
const db = database.db;
const time = async <T>(fn: () => Promise<T>) => {
  const t = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - t) };
};

const orgId = `org_bench${Date.now()}`;
const collectionId = `icol_bench${Date.now()}`;
const now = new Date();
await collectionStore.insertUnlessExists(db, {
  id: collectionId,
  org_id: orgId,
  name: 'bench',
  kind: 'default',
  status: 'active',
  retention_days: 90,
  identity_count: null,
  count_refreshed_at: null,
  last_captured_at: null,
  created_at: now,
  updated_at: now,
});
// RUNS runs of N/RUNS identities each, overlapping by half (the same person matched by two runs counts once).
const perRun = Math.floor(N / RUNS);
const expiresAt = new Date(now.getTime() + 90 * 86_400_000);
const capture = await time(async () => {
  for (let r = 0; r < RUNS; r++) {
    const start = r * Math.floor(perRun / 2);
    const rows = Array.from({ length: perRun }, (_, i) => ({
      collection_id: collectionId,
      org_id: orgId,
      run_id: `ir_bench${r}`,
      person_key: String(1_000_000 + start + i),
      provider: 'oauth_partner',
      connection_id: 'partner_bench',
      source_kind: 'file',
      boundary_at: now,
      captured_at: now,
      expires_at: expiresAt,
    }));
    await db.transaction().execute((trx) => collectionStore.insertIdentities(trx, rows));
  }
});
const countAll = await time(() => collectionStore.countDistinct(db, collectionId, {}, now));
const countRun = await time(() =>
  collectionStore.countDistinct(
    db,
    collectionId,
    {
      integration_run_ids: ['ir_bench1', 'ir_bench2'],
      boundary_at_from: new Date(now.getTime() - 86_400_000),
      boundary_at_to: now,
    },
    now,
  ),
);
const keys = await time(() => collectionStore.personKeys(db, collectionId, {}, now));
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
const target = join(dataDir, 'members.parquet');
const parquet = await time(async () => {
  const csv = `${target}.csv`;
  writeFileSync(csv, `${keys.value.join('\n')}\n`);
  await conn.run(
    `COPY (SELECT DISTINCT person_key FROM read_csv('${csv}', header = false, columns = {'person_key': 'BIGINT'}) ORDER BY person_key) TO '${target}' (FORMAT parquet)`,
  );
});
const expire = await time(() => collectionStore.expire(db, new Date(expiresAt.getTime() + 1), orgId));

console.log(
  JSON.stringify(
    {
      store: database.kind,
      identity_rows: perRun * RUNS,
      runs: RUNS,
      capture: { ms: capture.ms, rows_per_second: Math.round((perRun * RUNS) / (capture.ms / 1000)) },
      count_all: { ms: countAll.ms, distinct: countAll.value },
      count_two_runs_date_range: { ms: countRun.ms, distinct: countRun.value },
      segment_member_keys: { ms: keys.ms, keys: keys.value.length },
      segment_parquet: { ms: parquet.ms, bytes: statSync(target).size },
      expire_all: { ms: expire.ms, deleted: expire.value },
    },
    null,
    2,
  ),
);
conn.closeSync();
inst.closeSync();
await db.deleteFrom('integration_collections').where('id', '=', collectionId).execute();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
