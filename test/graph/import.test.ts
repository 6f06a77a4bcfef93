import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { GraphImportError, importGraph, readCurrentRelease } from '../../src/graph/index.ts';
import { openWarehouse } from '../../src/graph/warehouse.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'graph-import-'));
const CSV = [
  'id,given,surname,mail,street,city,st,zip,birth_date,hh,tel,income',
  '1,John,Smith,John.Smith@Example.com ,12 main  st,boston,ma,2134,1980-05-01,10,(617) 555-0101,85000',
  '1,John,Smith,jsmith@work.com,99 other st,boston,ma,02134,1980-05-01,10,617-555-0101,85000',
  "2,  mary ,o'neil,,5 oak ave,,,10001,03/15/1990,10,1 212 555 0199,",
  '3,Bob,Jones,bob@x.com,7 elm rd,springfield,IL,62704-1234,,,12345,',
].join('\n');
const MAPPING = {
  person_key: 'id',
  first_name: 'given',
  last_name: 'surname',
  email: 'mail',
  address_1: 'street',
  city: 'city',
  state: 'st',
  zip: 'zip',
  dob: 'birth_date',
  household_key: 'hh',
  phone: 'tel',
  household_income: 'income',
};

describe('importGraph', () => {
  it('imports a CSV as a new major release: one person per key, normalized, queryable', async () => {
    const dataDir = tmp();
    const file = path.join(dataDir, 'people.csv');
    fs.writeFileSync(file, CSV);
    const info = await importGraph({ dataDir, file, mapping: MAPPING, releaseDate: '2025-06-01' });
    expect(info).toMatchObject({ major: 1, minor: 0, persons: 3, notes: [] });
    expect(readCurrentRelease(dataDir)?.file).toBe(info.file);
    const w = await openWarehouse({ dataDir });
    try {
      const persons = await w.query('SELECT * FROM graph.persons ORDER BY person_key');
      expect(persons[0]).toMatchObject({
        person_key: 1,
        first_name: 'JOHN',
        last_name: 'SMITH',
        address_1: '12 MAIN ST',
        city: 'BOSTON',
        state: 'MA',
        zip5: '02134',
        zip3: '021',
        dob: '1980-05-01',
        age: 45,
        household_key: 10,
        household_size: 2,
        household_income: 85000,
        has_email: true,
        has_phone: true,
      });
      expect(Number(persons[0]!.lat)).toBeGreaterThan(42);
      // Missing city and state come from the reference ZIP; a US date format is understood.
      expect(persons[1]).toMatchObject({
        first_name: 'MARY',
        last_name: "O'NEIL",
        city: 'NEW YORK',
        state: 'NY',
        dob: '1990-03-15',
        has_email: false,
      });
      expect(persons[2]).toMatchObject({ zip5: '62704', household_key: null, household_size: null, has_phone: false });
      const emails = await w.query('SELECT person_key, email, email_sha256 = sha256(email) AS ok FROM graph.emails ORDER BY email');
      expect(emails).toEqual([
        { person_key: 3, email: 'bob@x.com', ok: true },
        { person_key: 1, email: 'john.smith@example.com', ok: true },
        { person_key: 1, email: 'jsmith@work.com', ok: true },
      ]);
      const phones = await w.query('SELECT person_key, phone FROM graph.phones ORDER BY phone');
      expect(phones).toEqual([
        { person_key: 2, phone: '+12125550199' },
        { person_key: 1, phone: '+16175550101' },
      ]);
      const addr = await w.query('SELECT address_1, is_current FROM graph.addresses WHERE person_key = 1 ORDER BY address_1');
      expect(addr).toEqual([
        { address_1: '12 MAIN ST', is_current: true },
        { address_1: '99 OTHER ST', is_current: false },
      ]);
      const [hh] = await w.query('SELECT household_size FROM graph.households WHERE household_key = 10');
      expect(hh!.household_size).toBe(2);
    } finally {
      await w.close();
    }
  }, 120_000);

  it('imports Parquet with text person keys, hashing them and saying so', async () => {
    const dataDir = tmp();
    const file = path.join(dataDir, 'people.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`COPY (SELECT 'cust-' || (range // 2) AS pid, 'ann' AS fname, 'lee' AS lname, 'ann' || range || '@mail.com' AS email, 60601 AS zip
      FROM range(6)) TO '${file}' (FORMAT parquet)`);
    c.closeSync();
    db.closeSync();
    const first = await importGraph({
      dataDir,
      file,
      mapping: { person_key: 'pid', first_name: 'fname', last_name: 'lname', email: 'email', zip: 'zip' },
    });
    expect(first.persons).toBe(3);
    expect(first.notes.join(' ')).toMatch(/person_key.*hashed/);
    const second = await importGraph({ dataDir, file, mapping: { person_key: 'pid', email: 'email' } });
    expect(second.major).toBe(2);
    const w = await openWarehouse({ dataDir });
    try {
      const [s] = await w.query(`SELECT count(*) AS n, count(DISTINCT person_key) AS keys, max(first_name) AS fn,
        (SELECT count(*) FROM graph.emails) AS emails FROM graph.persons`);
      expect(s).toMatchObject({ n: 3, keys: 3, fn: null, emails: 6 });
      // Hashing is deterministic: the same text gives the same key in both releases.
      await w.query(`ATTACH '${path.join(dataDir, 'warehouse', 'releases', first.file)}' AS r1 (READ_ONLY)`);
      const [same] = await w.query('SELECT count(*) AS n FROM r1.persons JOIN graph.persons USING (person_key)');
      expect(same!.n).toBe(3);
    } finally {
      await w.close();
    }
  }, 120_000);

  it('refuses a bad mapping with an operator-readable error and leaves the current release alone', async () => {
    const dataDir = tmp();
    const file = path.join(dataDir, 'people.csv');
    fs.writeFileSync(file, CSV);
    const fail = (mapping: Record<string, string>, f = file) => importGraph({ dataDir, file: f, mapping }).catch((e: unknown) => e);
    const unknown = await fail({ person_key: 'id', favourite_colour: 'given', zip3: 'zip' });
    expect(unknown).toBeInstanceOf(GraphImportError);
    expect((unknown as GraphImportError).issues).toHaveLength(2);
    expect(String((unknown as Error).message)).toMatch(/Unknown attribute "favourite_colour"/);
    expect(String((unknown as Error).message)).toMatch(/"zip3".*derived/);
    const missing = await fail({ person_key: 'id', email: 'Mail', phone: 'phone_number' });
    expect(missing).toBeInstanceOf(GraphImportError);
    expect((missing as Error).message).toMatch(/Column "Mail" .*did you mean "mail"/);
    expect((missing as Error).message).toMatch(/Column "phone_number"/);
    const noKey = await fail({ email: 'mail' });
    expect((noKey as Error).message).toMatch(/No column is mapped to "person_key"/);
    expect(await fail(MAPPING, path.join(dataDir, 'nope.xlsx'))).toBeInstanceOf(GraphImportError);
    expect(readCurrentRelease(dataDir)).toBeNull();
    expect(fs.readdirSync(path.join(dataDir, 'warehouse', 'releases')).filter((f) => !f.startsWith('.'))).toEqual([]);
  }, 120_000);
});
