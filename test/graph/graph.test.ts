import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateGraph } from '../../src/graph/generate.ts';
import { openWarehouse } from '../../src/graph/warehouse.ts';
import { WarehouseUnavailableError } from '../../src/graph/errors.ts';
import { readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'graph-test-'));
const HASH = `SELECT (SELECT sum(hash(p)) FROM graph.persons p)::VARCHAR AS p, (SELECT sum(hash(e)) FROM graph.emails e)::VARCHAR AS e,
  (SELECT sum(hash(a)) FROM graph.addresses a)::VARCHAR AS a, (SELECT sum(hash(f)) FROM graph.phones f)::VARCHAR AS f`;

async function contentHash(dataDir: string) {
  const w = await openWarehouse({ dataDir });
  try {
    return (await w.query(HASH))[0];
  } finally {
    await w.close();
  }
}

describe('synthetic graph', () => {
  it('is deterministic for a seed and size, and differs across seeds', async () => {
    const [a, b, c] = [tmp(), tmp(), tmp()];
    await generateGraph({ dataDir: a, persons: 3000, seed: 7, releaseDate: '2025-06-01' });
    await generateGraph({ dataDir: b, persons: 3000, seed: 7, releaseDate: '2025-06-01' });
    await generateGraph({ dataDir: c, persons: 3000, seed: 8, releaseDate: '2025-06-01' });
    expect(await contentHash(a)).toEqual(await contentHash(b));
    expect(await contentHash(a)).not.toEqual(await contentHash(c));
  }, 120_000);

  it('looks like a population and serves queries READ_ONLY', async () => {
    const dataDir = tmp();
    const info = await generateGraph({ dataDir, persons: 5000, seed: 1, releaseDate: '2025-06-01' });
    expect(readCurrentRelease(dataDir)).toMatchObject({ major: 1, minor: 0, persons: 5000 });
    const w = await openWarehouse({ dataDir });
    const [s] = await w.query(`SELECT count(*) AS n, min(household_size) AS hmin, max(household_size) AS hmax,
      min(age) AS amin, max(age) AS amax, count(*) FILTER (WHERE zip3 <> left(zip5, 3)) AS bad_zip3,
      corr(age, household_income) FILTER (WHERE age BETWEEN 18 AND 45) AS age_income,
      corr(household_income, home_value) AS income_value FROM graph.persons`);
    expect(s).toMatchObject({ n: 5000, hmin: 1, bad_zip3: 0 });
    expect(s!.hmax).toBeLessThanOrEqual(6);
    expect(s!.amax).toBeLessThan(110);
    expect(Number(s!.income_value)).toBeGreaterThan(0.3);
    const [geo] = await w.query(`SELECT count(*) AS bad FROM graph.persons p
      LEFT JOIN read_csv('reference/zips.csv', all_varchar = true) z ON z.zip5 = p.zip5 AND z.city = p.city AND z.state = p.state
      WHERE z.zip5 IS NULL`);
    expect(geo!.bad).toBe(0);
    const interests = CATALOG_FIELDS.find((f) => f.name === 'interests')!;
    const bits = interests.storage.kind === 'bitmask' ? interests.storage.values.length : 0;
    const [m] = await w.query(`SELECT count(*) AS bad FROM graph.persons WHERE interests_mask >> $1 <> 0`, [bits]);
    expect(m!.bad).toBe(0);
    // Persons are written in key order without an ORDER BY (zone maps prune key lookups): check it holds.
    const [o] = await w.query(`SELECT count(*) FILTER (WHERE person_key < prev) AS out_of_order FROM
      (SELECT person_key, lag(person_key) OVER (ORDER BY rowid) AS prev FROM graph.persons)`);
    expect(o!.out_of_order).toBe(0);
    // The discovery table: the same persons without identity columns, sorted by geography, and a
    // breakdown_key whose codes decode back to each person's own gender, age band, income band, state.
    const [d] = await w.query(`SELECT count(*) AS n,
        count(*) FILTER (WHERE d.state IS DISTINCT FROM p.state OR d.age IS DISTINCT FROM p.age) AS differ
      FROM graph.discovery_persons d JOIN graph.persons p USING (person_key)`);
    expect(d).toMatchObject({ n: 5000, differ: 0 });
    const cols = (
      await w.query(`SELECT column_name AS c FROM duckdb_columns() WHERE database_name = 'graph' AND table_name = 'discovery_persons'`)
    ).map((r) => r.c);
    expect(cols).toContain('breakdown_key');
    for (const f of CATALOG_FIELDS) expect(cols.includes(f.storage.column), f.name).toBe(!f.pii);
    const [sorted] = await w.query(`SELECT count(*) FILTER (WHERE state < prev) AS out_of_order FROM
      (SELECT state, lag(state) OVER (ORDER BY rowid) AS prev FROM graph.discovery_persons)`);
    expect(sorted!.out_of_order).toBe(0);
    const [decoded] = await w.query(`SELECT count(*) AS wrong FROM graph.discovery_persons p JOIN graph.breakdown_codes c
        ON (p.breakdown_key // c.stride) % c.radix = c.code
      WHERE c.value IS DISTINCT FROM CASE c.dimension WHEN 'gender' THEN p.gender WHEN 'income_band' THEN p.income_band
        WHEN 'state' THEN p.state ELSE CASE WHEN p.age < 18 THEN 'under_18' WHEN p.age < 25 THEN '18_24' WHEN p.age < 35 THEN '25_34'
        WHEN p.age < 45 THEN '35_44' WHEN p.age < 55 THEN '45_54' WHEN p.age < 65 THEN '55_64' WHEN p.age >= 65 THEN '65_plus' END END`);
    expect(decoded!.wrong).toBe(0);
    const [per] = await w.query(`SELECT count(*) AS n FROM graph.discovery_persons p JOIN graph.breakdown_codes c
        ON (p.breakdown_key // c.stride) % c.radix = c.code`);
    expect(per!.n).toBe(4 * 5000); // exactly one code per dimension per person
    expect((await w.release()).file).toBe(info.file);
    await expect(w.query(`CREATE TABLE graph.x AS SELECT 1`)).rejects.toThrow();
    await w.close();
  }, 120_000);

  it('switches when the pointer changes and fails typed when the file is missing', async () => {
    const dataDir = tmp();
    const first = await generateGraph({ dataDir, persons: 2000, seed: 1, releaseDate: '2025-06-01' });
    const w = await openWarehouse({ dataDir, pointerCheckMs: 0 });
    expect((await w.query('SELECT count(*) AS n FROM graph.persons'))[0]!.n).toBe(2000);
    const second = await generateGraph({ dataDir, persons: 2500, seed: 1, releaseDate: '2025-06-01' });
    expect(second.major).toBe(first.major + 1);
    expect((await w.query('SELECT count(*) AS n FROM graph.persons'))[0]!.n).toBe(2500);
    fs.rmSync(releaseFilePath(dataDir, second));
    const err = await w.query('SELECT 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WarehouseUnavailableError);
    expect((err as WarehouseUnavailableError).kind).toBe('release_missing');
    await w.close();
    const empty = await openWarehouse({ dataDir: tmp() });
    await expect(empty.query('SELECT 1')).rejects.toMatchObject({ kind: 'no_release' });
    await empty.close();
  }, 120_000);
});
