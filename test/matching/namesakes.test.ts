/**
 * Issue #31, point 16: an imported graph of common names in a few ZIPs, a third of its people in pairs of
 * namesakes born the same day in different ZIPs, half of them without a street. POST /v1/match with first name,
 * last name, US dob and ZIP only must find each person at I, told from the namesake by the ZIP, and leave
 * people who are not in the graph below I.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGraph } from '../../src/graph/index.ts';
import { readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import { matchParamsPath, writeMatchParams } from '../../src/identity/matcher/params.ts';
import { refitMatchParams } from '../../src/identity/matcher/refit.ts';
import { namesakeSet, type NamesakeRow } from '../../src/identity/matcher/namesake-set.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';

const set = namesakeSet(1000);
let t: TestApp;
let token: string;
let dataDir: string;
/** row_id -> the answer of POST /v1/match. */
const answers = new Map<string, Record<string, any>>();

/** The answers of POST /v1/match for `rows`, 100 a call. */
async function matchAll(app: TestApp, bearerToken: string, rows: readonly NamesakeRow[]): Promise<Map<string, Record<string, any>>> {
  const out = new Map<string, Record<string, any>>();
  for (let i = 0; i < rows.length; i += 100) {
    const res = await app.app.inject({
      method: 'POST',
      url: '/v1/match',
      headers: bearer(bearerToken),
      payload: { records: rows.slice(i, i + 100).map((r) => r.record) },
    });
    expect(res.statusCode).toBe(200);
    for (const rec of res.json().records) out.set(rec.row_id, rec);
  }
  return out;
}

beforeAll(async () => {
  // One import per worker running this file: a fresh folder, so the graph is always the importer's current output.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-namesakes-'));
  const file = path.join(dataDir, 'people.csv');
  fs.writeFileSync(file, set.csv);
  await importGraph({ dataDir, file, mapping: set.mapping, releaseDate: '2026-01-01', threads: 1 });
  t = await testApp({ config: { dataDir } });
  const org = await createTestOrg(t);
  token = await org.token();
  for (const [id, rec] of await matchAll(t, token, set.rows)) answers.set(id, rec);
}, 240_000);
afterAll(async () => t?.app.close());

const of = (kind: NamesakeRow['kind']) => set.rows.filter((r) => r.kind === kind);
const personOf = (r: NamesakeRow) => set.persons[r.personId! - 1]!;

describe('POST /v1/match on an imported graph of namesakes in a few ZIPs', () => {
  it("imports a ZIP without a street as the person's locality", async () => {
    const zipOnly = set.persons.find((p) => p.street === null)!;
    const [rec] = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/match',
        headers: bearer(token),
        payload: { records: [{ row_id: 'z', first_name: zipOnly.first, last_name: zipOnly.last, dob: zipOnly.dob, zip: zipOnly.zip }] },
      })
    ).json().records;
    expect(rec).toMatchObject({ match_level: 'I', zip5: zipOnly.zip });
  });

  it("matches every namesake at I to the person of the row's ZIP", () => {
    const rows = of('namesake');
    expect(rows.length).toBeGreaterThan(set.persons.length / 4); // the fixture's third, roughly
    const wrong = rows.filter(
      (r) => answers.get(r.record.row_id)?.match_level !== 'I' || answers.get(r.record.row_id)?.zip5 !== personOf(r).zip,
    );
    expect(wrong.map((r) => `${r.record.row_id}: ${answers.get(r.record.row_id)?.match_level}`)).toEqual([]);
  });

  it('matches every person without a namesake at I (name + dob, the ZIP agreeing)', () => {
    const wrong = of('single').filter(
      (r) => answers.get(r.record.row_id)?.match_level !== 'I' || answers.get(r.record.row_id)?.zip5 !== personOf(r).zip,
    );
    expect(wrong.map((r) => r.record.row_id)).toEqual([]);
    expect(new Set(of('single').map((r) => answers.get(r.record.row_id)!.match_type))).toEqual(new Set(['name_dob']));
  });

  it("leaves people who are not in the graph below I: namesakes' name and dob in an empty ZIP, a name with another dob", () => {
    const absent = [...of('absent_other_zip'), ...of('absent_other_dob')];
    expect(of('absent_other_zip').length).toBeGreaterThan(0);
    expect(of('absent_other_dob').length).toBeGreaterThan(0);
    expect(absent.filter((r) => answers.get(r.record.row_id)?.match_level === 'I').map((r) => r.record.row_id)).toEqual([]);
  });
});

describe('ads matching refit on the imported graph (no household keys, half the people without a street)', () => {
  it('fits the release and the fitted scorer still finds every namesake at I, absent people below I', async () => {
    const releaseFile = releaseFilePath(dataDir, readCurrentRelease(dataDir)!);
    writeMatchParams(matchParamsPath(releaseFile), await refitMatchParams(releaseFile, { randomPairs: 4000, listRows: 1000 }));
    // A new app: its matcher reads the release's parameters once.
    const fitted = await testApp({ config: { dataDir } });
    try {
      const org = await createTestOrg(fitted);
      const rows = [...of('namesake'), ...of('absent_other_zip'), ...of('absent_other_dob')];
      const got = await matchAll(fitted, await org.token(), rows);
      const wrong = rows.filter(
        (r) =>
          (got.get(r.record.row_id)?.match_level === 'I') !== (r.personId !== null) ||
          (r.personId !== null && got.get(r.record.row_id)?.zip5 !== personOf(r).zip),
      );
      expect(wrong.map((r) => `${r.record.row_id}: ${got.get(r.record.row_id)?.match_level}`)).toEqual([]);
    } finally {
      await fitted.app.close();
    }
  }, 240_000);
});
