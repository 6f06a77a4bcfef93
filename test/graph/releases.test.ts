import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGraph, readCurrentRelease, releaseMajor, releaseMinor, type ReleaseInfo } from '../../src/graph/index.ts';
import { releaseFilePath } from '../../src/graph/releases.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { INTERESTS } from '../../src/graph/vocab.ts';

const IDENTITY = ['first_name', 'middle_name', 'last_name', 'name_suffix', 'dob', 'address_1', 'address_2', 'city', 'state', 'zip5'];
const changed = (cols: string[]) => cols.map((c) => `o.${c} IS DISTINCT FROM n.${c}`).join(' OR ');

// One graph, released twice: generate (1.0) -> minor (1.1) -> major (2.0). Each test reads one step.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graph-release-'));
let v10: ReleaseInfo;
let v11: ReleaseInfo;
let v20: ReleaseInfo;
let w: Warehouse;

beforeAll(async () => {
  v10 = await generateGraph({ dataDir, persons: 3000, seed: 3, releaseDate: '2025-06-01' });
  const steps: string[] = [];
  v11 = await releaseMinor({ dataDir, seed: 11, releaseDate: '2025-07-01', onProgress: (e) => steps.push(e.step) });
  expect(steps).toContain('done');
  w = await openWarehouse({ dataDir, pointerCheckMs: 0 });
  await w.query(`ATTACH '${releaseFilePath(dataDir, v10)}' AS r10 (READ_ONLY)`);
  await w.query(`ATTACH '${releaseFilePath(dataDir, v11)}' AS r11 (READ_ONLY)`);
}, 180_000);
afterAll(async () => {
  await w?.close();
});

describe('minor release', () => {
  it('keeps keys and identity, adds persons, changes some demographics, bumps the minor', async () => {
    expect(v11).toMatchObject({ major: 1, minor: 1, persons: 3030 });
    const [s] = await w.query(`SELECT
      (SELECT count(*) FROM r10.persons o JOIN r11.persons n USING (person_key)) AS kept,
      (SELECT count(*) FROM r10.persons o JOIN r11.persons n USING (person_key) WHERE ${changed(IDENTITY)}) AS identity_changed,
      (SELECT count(*) FROM r10.persons o JOIN r11.persons n USING (person_key) WHERE o.household_key IS DISTINCT FROM n.household_key) AS hh_changed,
      (SELECT count(*) FROM r10.persons o JOIN r11.persons n USING (person_key) WHERE o.interests_mask <> n.interests_mask) AS interests_changed,
      (SELECT count(*) FROM r10.persons o JOIN r11.persons n USING (person_key) WHERE o.household_income <> n.household_income) AS income_changed,
      (SELECT min(person_key) FROM r11.persons WHERE person_key NOT IN (SELECT person_key FROM r10.persons)) AS first_new,
      (SELECT count(*) FROM (SELECT person_key, email FROM r10.emails EXCEPT SELECT person_key, email FROM r11.emails)) AS emails_lost,
      (SELECT count(*) FROM (SELECT person_key, email FROM r11.emails WHERE person_key <= 3000 EXCEPT SELECT person_key, email FROM r10.emails)) AS emails_added,
      (SELECT count(*) FROM (SELECT * FROM r10.phones EXCEPT SELECT * FROM r11.phones)) AS phones_lost,
      (SELECT count(*) FROM (SELECT * FROM r10.addresses EXCEPT SELECT * FROM r11.addresses)) AS addresses_changed,
      (SELECT count(*) - count(DISTINCT email) FROM r11.emails) AS duplicate_emails`);
    expect(s).toMatchObject({
      kept: 3000,
      identity_changed: 0,
      hh_changed: 0,
      first_new: 3001,
      emails_lost: 0,
      emails_added: 0,
      phones_lost: 0,
      addresses_changed: 0,
      duplicate_emails: 0,
    });
    expect(Number(s!.interests_changed)).toBeGreaterThan(20);
    expect(Number(s!.income_changed)).toBeGreaterThan(10);
    expect(readCurrentRelease(dataDir)).toMatchObject({ major: 1, minor: 1, file: v11.file });
  });
});

describe('major release', () => {
  it('moves some households (old address kept as history), adds emails, keeps keys, bumps the major', async () => {
    v20 = await releaseMajor({ dataDir, seed: 20, releaseDate: '2025-09-01', moveRate: 0.05 });
    expect(v20).toMatchObject({ major: 2, minor: 0 });
    expect(v20.persons).toBeGreaterThan(3030);
    await w.refresh();
    expect((await w.release()).file).toBe(v20.file);
    const [s] = await w.query(`SELECT
      (SELECT count(*) FROM r11.persons o JOIN graph.persons n USING (person_key)) AS kept,
      (SELECT count(*) FROM r11.persons o JOIN graph.persons n USING (person_key) WHERE o.address_1 IS DISTINCT FROM n.address_1 OR o.zip5 <> n.zip5) AS moved,
      (SELECT count(*) FROM r11.persons o JOIN graph.persons n USING (person_key) WHERE ${changed(['first_name', 'last_name', 'dob'])}) AS names_changed,
      (SELECT count(*) FROM r11.persons o JOIN graph.persons n USING (person_key) WHERE (o.address_1 IS DISTINCT FROM n.address_1)
         AND NOT EXISTS (SELECT 1 FROM graph.addresses a WHERE a.person_key = o.person_key AND NOT a.is_current
           AND a.address_1 = o.address_1 AND a.zip5 = o.zip5 AND a.moved_out = DATE '2025-09-01')) AS moved_without_history,
      (SELECT count(*) FROM (SELECT person_key FROM graph.addresses WHERE is_current GROUP BY person_key HAVING count(*) > 1)) AS two_current,
      (SELECT count(*) FROM graph.persons p JOIN graph.addresses a ON a.person_key = p.person_key AND a.is_current
         WHERE a.address_1 IS DISTINCT FROM p.address_1 OR a.zip5 <> p.zip5) AS current_mismatch,
      (SELECT count(*) FROM (SELECT person_key, email FROM graph.emails WHERE person_key <= 3030 EXCEPT SELECT person_key, email FROM r11.emails)) AS emails_added,
      (SELECT count(*) FROM (SELECT person_key, email FROM r11.emails EXCEPT SELECT person_key, email FROM graph.emails)) AS emails_lost,
      (SELECT count(*) FILTER (WHERE person_key < prev) FROM (SELECT person_key, lag(person_key) OVER (ORDER BY rowid) AS prev FROM graph.persons)) AS out_of_order`);
    expect(s).toMatchObject({
      kept: 3030,
      names_changed: 0,
      moved_without_history: 0,
      two_current: 0,
      current_mismatch: 0,
      emails_lost: 0,
      out_of_order: 0,
    });
    expect(Number(s!.moved)).toBeGreaterThan(30);
    expect(Number(s!.emails_added)).toBeGreaterThan(10);
  }, 120_000);
});

describe('synthetic interests', () => {
  it('correlate with age and gender', async () => {
    const bit = (name: string) => 2 ** INTERESTS.indexOf(name);
    const [s] = await w.query(`SELECT
      avg(CASE WHEN interests_mask & ${bit('gaming')} <> 0 THEN 1 ELSE 0 END) FILTER (WHERE age BETWEEN 18 AND 24) AS gaming_young,
      avg(CASE WHEN interests_mask & ${bit('gaming')} <> 0 THEN 1 ELSE 0 END) FILTER (WHERE age >= 55) AS gaming_senior,
      avg(CASE WHEN interests_mask & ${bit('beauty')} <> 0 THEN 1 ELSE 0 END) FILTER (WHERE gender = 'F' AND age >= 18) AS beauty_f,
      avg(CASE WHEN interests_mask & ${bit('beauty')} <> 0 THEN 1 ELSE 0 END) FILTER (WHERE gender = 'M' AND age >= 18) AS beauty_m,
      count(*) FILTER (WHERE age < 13 AND interests_mask <> 0) AS child_interests
      FROM r10.persons`);
    expect(Number(s!.gaming_young)).toBeGreaterThan(2 * Number(s!.gaming_senior));
    expect(Number(s!.beauty_f)).toBeGreaterThan(3 * Number(s!.beauty_m));
    expect(s!.child_interests).toBe(0);
  });
});
