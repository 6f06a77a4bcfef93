/**
 * The engine on a small generated graph (4,000 persons): every level and match_type, the
 * matchLevels restriction, direct refresh and its fallback, moved people, absent people, SQL/JS
 * scoring parity and micro-batch vs file-path parity.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMatchIndex,
  createMatcher,
  scoreCandidate,
  type CandidateAttributes,
  type Matcher,
  type MatchOptions,
  type StagedDecision,
} from '../../src/identity/matcher/index.ts';
import { stageRows } from '../../src/identity/matcher/stage.ts';
import { generateHardenedSet } from '../../src/identity/matcher/hardened-set.ts';
import { personLookupSql } from '../../src/identity/matcher/point.ts';
import { loadResidentPersons } from '../../src/identity/matcher/resident-persons.ts';
import { generateLabelledSet } from '../../src/identity/matcher/labelled-set.ts';
import { addressKey, emailMatchKey, emailSha256, normalizeAddress, normalizeMatchInput } from '../../src/identity/normalize/index.ts';
import { testGraph, TEST_GRAPH_DIR, type TestGraph } from './helpers.ts';

let g: TestGraph;
let matcher: Matcher;
const ALL: MatchOptions = { matchLevels: ['I', 'H', 'D', 'S', 'A'], spatialMode: 'residential' };
type Row = Record<string, any>;
const q = (sql: string) => g.warehouse.query(sql) as Promise<Row[]>;
const title = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

async function match(recs: Row[], opts: MatchOptions = ALL) {
  return matcher.matchBatch(
    recs.map((r, i) => normalizeMatchInput(r, { position: i + 1 })),
    opts,
  );
}

/** An adult with an email, a phone, a past address and a household of 2+. */
let p: Row;
let spouse: Row;

beforeAll(async () => {
  g = await testGraph(TEST_GRAPH_DIR, 4000);
  matcher = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath });
  [p] = await q(`SELECT p.*, strftime(p.dob, '%Y-%m-%d') AS dobs,
      (SELECT min(email) FROM graph.emails e WHERE e.person_key = p.person_key) AS email,
      (SELECT min(phone) FROM graph.phones f WHERE f.person_key = p.person_key AND kind = 'mobile') AS phone,
      (SELECT first({a1: address_1, zip: zip5}) FROM graph.addresses a WHERE a.person_key = p.person_key AND NOT is_current) AS past
    FROM graph.persons p WHERE age >= 25 AND household_size >= 2 AND address_2 IS NULL
      AND EXISTS (SELECT 1 FROM graph.emails e WHERE e.person_key = p.person_key)
      AND EXISTS (SELECT 1 FROM graph.phones f WHERE f.person_key = p.person_key AND kind = 'mobile')
      AND EXISTS (SELECT 1 FROM graph.addresses a WHERE a.person_key = p.person_key AND NOT is_current)
      AND EXISTS (SELECT 1 FROM graph.persons s WHERE s.household_key = p.household_key AND s.person_key <> p.person_key
                  AND s.last_name = p.last_name AND s.first_name <> p.first_name)
    ORDER BY person_key LIMIT 1`);
  [spouse] = await q(`SELECT * FROM graph.persons WHERE household_key = ${p.household_key} AND person_key <> ${p.person_key}
    AND last_name = '${p.last_name}' ORDER BY person_key LIMIT 1`);
});
afterAll(() => g?.warehouse.close());

const name = () => ({ first_name: title(p.first_name), last_name: title(p.last_name) });
const home = () => ({ address_1: title(p.address_1), city: title(p.city), state: p.state, zip: p.zip5 });

describe('matchBatch levels and types', () => {
  it('I: email+name, phone+name, name_address, name_dob, address_history', async () => {
    const res = await match([
      { ...name(), email: p.email.toUpperCase() },
      { ...name(), phone: p.phone.slice(2) },
      { ...name(), ...home() },
      { ...name(), dob: p.dobs },
      { ...name(), address_1: title(p.past.a1), zip: p.past.zip },
    ]);
    expect(res.map((r) => [r.matchLevel, r.matchType])).toEqual([
      ['I', 'email+name'],
      ['I', 'phone+name'],
      ['I', 'name_address'],
      ['I', 'name_dob'],
      ['I', 'address_history'],
    ]);
    for (const r of res) {
      expect(r.personKey).toBe(p.person_key);
      expect(r.householdKey).toBe(p.household_key);
      expect(r.matchConfidence).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('H: the surname at the address without a matching first name; A: the address alone', async () => {
    const [h, a] = await match([{ first_name: 'Zebulon', last_name: title(p.last_name), ...home() }, home()]);
    expect(h).toMatchObject({ matchLevel: 'H', matchType: 'household', householdKey: p.household_key });
    expect(a).toMatchObject({ matchLevel: 'A', matchType: 'address', householdKey: p.household_key });
    // H and A name the household's reference person (its lowest person key).
    const [ref] = await q(`SELECT min(person_key) AS k FROM graph.persons WHERE household_key = ${p.household_key}`);
    expect(h!.personKey).toBe(ref!.k);
  });

  it('D: email or phone without corroboration', async () => {
    const [e, f] = await match([{ email: p.email }, { phone: p.phone }]);
    expect(e).toMatchObject({ matchLevel: 'D', matchType: 'email', personKey: p.person_key });
    expect(f).toMatchObject({ matchLevel: 'D', matchType: 'phone', personKey: p.person_key });
  });

  it("S: a made-up house number on a real street of the ZIP gets that street's anchor residence (or a worker with spatialMode work)", async () => {
    // A street with residences, its numbered range, and a ZIP that also has a worker anchor.
    const [st] = await q(`WITH a AS (SELECT person_key, zip5, address_1,
        regexp_extract(address_1, '^([0-9]+) ', 1)::INTEGER AS h, regexp_replace(address_1, '^[0-9]+ ', '') AS street
        FROM graph.addresses WHERE is_current AND regexp_matches(address_1, '^[0-9]+ [A-Z]'))
      SELECT street, zip5, min(h) AS lo, max(h) AS hi, count(*) AS n FROM a
      WHERE zip5 IN (SELECT work_zip5 FROM graph.persons) GROUP BY street, zip5 ORDER BY n DESC, street, zip5 LIMIT 1`);
    const house = Number(st!.hi) + 7; // on the street, past its last residence
    const rec = { first_name: 'Nobody', last_name: 'Knownhere', address_1: `${house} ${title(st!.street)}`, zip: st!.zip5 };
    const [res] = await match([rec]);
    expect(res).toMatchObject({ matchLevel: 'S', matchType: 'spatial_residential', matchConfidence: 0.1 });
    const [home] = await q(`SELECT zip5 FROM graph.persons WHERE person_key = ${res!.personKey}`);
    expect(home!.zip5).toBe(st!.zip5);
    const [work] = await match([{ address_1: rec.address_1, zip: st!.zip5 }], { ...ALL, spatialMode: 'work' });
    expect(work).toMatchObject({ matchLevel: 'S', matchType: 'spatial_work' });
    const [none] = await match([rec], { ...ALL, matchLevels: ['I', 'H', 'D', 'A'] });
    expect(none!.matchLevel).toBeNull();
  });

  it('S is never claimed for an address the graph does not know: a made-up street, a number far off the street, a ZIP alone', async () => {
    const [st] = await q(`SELECT zip5, regexp_replace(address_1, '^[0-9]+ ', '') AS street FROM graph.addresses
      WHERE is_current AND regexp_matches(address_1, '^[0-9]+ [A-Z]') ORDER BY person_key LIMIT 1`);
    const res = await match(
      [
        { first_name: 'Nobody', last_name: 'Knownhere', address_1: '98765 Nowhere Rd', zip: st!.zip5 },
        { first_name: 'Nobody', last_name: 'Knownhere', address_1: `99999 ${title(st!.street)}`, zip: st!.zip5 },
        { first_name: 'Nobody', last_name: 'Knownhere', zip: st!.zip5 },
      ],
      { ...ALL, spatialMode: 'auto' },
    );
    expect(res.map((r) => r.matchLevel)).toEqual([null, null, null]);
  });

  it('matchLevels: an I row falls back to H or D, or stays unmatched', async () => {
    const rec = { ...name(), ...home(), email: p.email };
    const [h] = await match([rec], { ...ALL, matchLevels: ['H'] });
    expect(h).toMatchObject({ matchLevel: 'H', householdKey: p.household_key });
    const [d] = await match([rec], { ...ALL, matchLevels: ['D'] });
    expect(d).toMatchObject({ matchLevel: 'D', personKey: p.person_key });
    const [none] = await match([{ ...name(), dob: p.dobs }], { ...ALL, matchLevels: ['D', 'A'] });
    expect(none).toMatchObject({ matchLevel: null, matchType: null, matchConfidence: null, personKey: null });
  });

  it('direct refresh: a known person key wins; a vanished one falls back with a warning', async () => {
    const rows = [
      { row_id: 'a', email: 'nobody@example.org' },
      { row_id: 'b', ...name(), email: p.email },
    ];
    const direct = new Map([
      ['a', spouse.person_key as bigint],
      ['b', 987654321n],
    ]);
    const [a, b] = await match(rows, { ...ALL, directPersonKeys: direct });
    expect(a).toMatchObject({ rowId: 'a', matchLevel: 'I', matchType: 'person_id', personKey: spouse.person_key, matchConfidence: 1 });
    expect(b).toMatchObject({ rowId: 'b', matchLevel: 'I', matchType: 'email+name', personKey: p.person_key });
    expect(b!.warnings.map((w) => w.code)).toContain('person_not_found');
  });

  it('warms the index once by probing a sample, stops when aborted, and matches the same afterwards', async () => {
    const labelled = await generateLabelledSet(g.warehouse, 'graph', 60, 5);
    const rows = labelled.map((l, i) => normalizeMatchInput(l.record, { position: i + 1 }));
    const fresh = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath });
    const aborted = new AbortController();
    aborted.abort();
    const none = await createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath }).warm({ signal: aborted.signal });
    expect([none.keys, none.persons]).toEqual([0, 0]);
    const before = await fresh.matchBatch(rows, ALL);
    const w = await fresh.warm({ keys: 5000, persons: 1000, batch: 700 });
    expect(w.keys).toBe(5000);
    expect(w.persons).toBe(1000);
    expect(await fresh.warm()).toEqual(w); // once per matcher
    expect(await fresh.matchBatch(rows, ALL)).toEqual(before);
  });

  it('a warmed matcher holds m_person in the process and matches exactly as the index lookups do', async () => {
    const set = await generateHardenedSet(g.warehouse, 'graph', 1000, 13);
    const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
    const cold = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath });
    const warmed = createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath });
    const w = await warmed.warm({ keys: 1000, persons: 500 });
    const [{ n }] = await q(`SELECT count(*) AS n FROM graph.persons`);
    expect(w.residentPersons).toMatchObject({ persons: Number(n), bytes: Number(n) * 48 });
    for (let i = 0; i < rows.length; i += 100) {
      const batch = rows.slice(i, i + 100);
      expect(await warmed.matchBatch(batch, ALL)).toEqual(await cold.matchBatch(batch, ALL));
    }
    // without it (residentPersons: false), or when it would not fit the allowance, nothing is loaded
    expect(
      (await createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath }).warm({ keys: 10, persons: 10, residentPersons: false }))
        .residentPersons,
    ).toBeUndefined();
    const small = await createMatcher({ warehouse: g.warehouse, indexPath: g.indexPath }).warm({
      keys: 10,
      persons: 10,
      residentMaxBytes: Number(n) * 48 - 1,
    });
    expect([small.keys, small.residentPersons]).toEqual([10, undefined]);
  });

  it("resident persons answer with personLookupSql's rows, values and types alike; unknown keys have none", async () => {
    const mx = 'mx_resident';
    await q(`ATTACH IF NOT EXISTS '${g.indexPath}' AS ${mx} (READ_ONLY)`);
    const [{ n }] = await q(`SELECT count(*) AS n FROM ${mx}.m_person`);
    const resident = (await loadResidentPersons((sql, cb) => g.warehouse.stream(sql, cb), mx, Number(n)))!;
    const keys = (await q(`SELECT person_key FROM ${mx}.m_person USING SAMPLE 300 ROWS`)).map((r) => BigInt(r.person_key));
    const byKey = (rows: Row[]) => new Map(rows.map((r) => [BigInt(r.person_key), r]));
    const fromSql = byKey(await q(personLookupSql(mx, keys)));
    const fromResident = resident.rows([...keys, 0n, -5n, keys[0]!]);
    expect(fromResident).toHaveLength(300); // each once, unknown keys dropped
    expect(byKey(fromResident)).toEqual(fromSql);
    expect(fromResident.some((r) => r.nickname === null) && fromResident.some((r) => r.dob !== null)).toBe(true);
  });

  it('people absent from the graph are not matched at I', async () => {
    const set = (await generateLabelledSet(g.warehouse, 'graph', 1500, 3)).filter((s) => s.personKey === null);
    const res = await match(set.map((s) => s.record));
    expect(res.filter((r) => r.matchLevel === 'I')).toEqual([]);
  });
});

describe('engine internals', () => {
  it("buildMatchIndex removes the temporary files a killed build left beside the release, not a running one's", async () => {
    const dir = path.dirname(g.indexPath);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    const left = [`.${path.basename(g.indexPath)}.${ended}.tmp`, `.${path.basename(g.indexPath)}.${ended}.tmp.wal`];
    const own = `.${path.basename(g.indexPath)}.${process.pid}.tmp`;
    for (const n of [...left, own]) fs.writeFileSync(path.join(dir, n), 'x');
    try {
      expect(await buildMatchIndex(g.releaseFile)).toBe(g.indexPath);
      for (const n of left) expect(fs.existsSync(path.join(dir, n))).toBe(false);
      expect(fs.existsSync(path.join(dir, own))).toBe(true);
    } finally {
      fs.rmSync(path.join(dir, own), { force: true });
    }
  });

  it('refuses a match index whose keys were reduced by another hash (m_meta.k64_probe), naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-k64-'));
    const copy = path.join(dir, path.basename(g.indexPath));
    fs.copyFileSync(g.indexPath, copy);
    const inst = await DuckDBInstance.create(copy);
    const c = await inst.connect();
    await c.run('UPDATE m_meta SET k64_probe = k64_probe + 1');
    c.closeSync();
    inst.closeSync();
    try {
      const other = createMatcher({ warehouse: g.warehouse, indexPath: copy });
      await expect(other.matchBatch([normalizeMatchInput({ ...name(), dob: p.dobs })], ALL)).rejects.toThrow(
        new RegExp(`the match index ${path.basename(copy).replace(/\./g, '\\.')} reduces blocking keys otherwise`),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a one-typo email beside the exact name is I (email+name) on both paths; a one-typo email alone is not matched', async () => {
    const [local, domain] = (p.email as string).split('@') as [string, string];
    // swap two letters of the local part (two edits), or mistype the domain
    const typo = `${local.slice(0, 1)}${local.slice(2, 3)}${local.slice(1, 2)}${local.slice(3)}@${domain}`;
    const recs = [{ ...name(), email: typo }, { ...name(), email: `${local}@${domain.replace(/\.(\w+)$/, 'x.$1')}` }, { email: typo }];
    const point = await match(recs);
    expect(point.map((r) => [r.matchLevel, r.matchType, r.personKey])).toEqual([
      ['I', 'email+name', BigInt(p.person_key)],
      ['I', 'email+name', BigInt(p.person_key)],
      [null, null, null],
    ]);
    // the same rows through the file path (> 2000 rows: staged files and hash joins)
    const many = await match(Array.from({ length: 2001 }, (_, i) => recs[i % 3]!));
    expect(many.slice(0, 3).map((r) => [r.matchLevel, r.matchType, r.personKey])).toEqual(
      point.map((r) => [r.matchLevel, r.matchType, r.personKey]),
    );
  });

  it("a street with city and state but no ZIP, or a ZIP not of that city, is found through the city's ZIPs (name_address, both paths); a made-up street there is not", async () => {
    const city = { address_1: title(p.address_1), city: title(p.city), state: p.state };
    const typoCity = {
      ...city,
      city: title(p.city).length > 5 ? `${title(p.city).slice(0, -2)}${title(p.city).slice(-1)}` : title(p.city),
    };
    const recs = [
      { ...name(), ...city },
      { ...name(), ...typoCity },
      { ...name(), city: title(p.city), state: p.state, dob: p.dobs }, // city only: a locality agreement beside name + dob
      { ...name(), ...city, zip: `${(Number(p.zip5[0]) + 5) % 10}${p.zip5.slice(1)}` }, // a ZIP that is not the city's
      { first_name: 'Nobody', last_name: 'Knownhere', address_1: '98765 Nowhere Rd', city: title(p.city), state: p.state },
    ];
    const point = await match(recs);
    expect(point.slice(0, 4).map((r) => [r.matchLevel, r.matchType, r.personKey])).toEqual([
      ['I', 'name_address', BigInt(p.person_key)],
      ['I', 'name_address', BigInt(p.person_key)],
      ['I', 'name_dob', BigInt(p.person_key)],
      ['I', 'name_address', BigInt(p.person_key)],
    ]);
    expect(point[4]!.matchLevel).toBeNull();
    // without the city the street alone says nothing (no ZIP, no locality): not matched at I
    expect((await match([{ ...name(), address_1: title(p.address_1) }]))[0]!.matchLevel).not.toBe('I');
    const many = await match(Array.from({ length: 2001 }, (_, i) => recs[i % recs.length]!));
    expect(many.slice(0, 5)).toEqual(point.map((r, i) => ({ ...r, rowId: String(i + 1) })));
  });
  it('a misspelled street with the right house number and ZIP is the address beside the full name (house level), never alone', async () => {
    const words = String(p.address_1).split(' ');
    let at = 1;
    for (let i = 2; i < words.length; i++) if (words[i]!.length > words[at]!.length) at = i;
    words[at] = `${words[at]}X`;
    const misspelled = { address_1: title(words.join(' ')), zip: p.zip5 };
    const recs = [
      { ...name(), ...misspelled },
      { first_name: 'Nobody', last_name: title(p.last_name), ...misspelled }, // surname only: not the person
      { ...name(), ...misspelled, address_1: `${Number(String(p.address_1).split(' ')[0]) + 2} ${words.slice(1).join(' ')}` }, // another number
    ];
    const point = await match(recs);
    expect(point.map((r) => [r.matchLevel, r.matchType])).toEqual([
      ['I', 'name_address'],
      [null, null],
      [null, null],
    ]);
    expect(point[0]!.personKey).toBe(BigInt(p.person_key));
    const many = await match(Array.from({ length: 2001 }, (_, i) => recs[i % recs.length]!));
    expect(many.slice(0, 3)).toEqual(point.map((r, i) => ({ ...r, rowId: String(i + 1) })));
  });

  it('a dob without its day agrees by year and month: the exact name + ZIP + that month is I (both paths); another month is not', async () => {
    const [y, m] = String(p.dobs).split('-') as [string, string];
    const other = String((Number(m) % 12) + 1).padStart(2, '0');
    const recs = [
      { ...name(), zip: p.zip5, dob: `${m}/${y}` },
      { ...name(), zip: p.zip5, dob: `${other}/${y}` },
      { ...name(), zip: p.zip5, dob: y }, // a year alone: weight, never the dob of an I type
    ];
    const point = await match(recs);
    expect(point.map((r) => [r.matchLevel, r.matchType])).toEqual([
      ['I', 'name_partial_dob_zip'],
      [null, null],
      [null, null],
    ]);
    expect(point[0]!.personKey).toBe(BigInt(p.person_key));
    expect(point[0]!.warnings.map((w) => w.code)).toEqual(['address_1_missing', 'dob_partial']);
    const many = await match(Array.from({ length: 2001 }, (_, i) => recs[i % recs.length]!));
    expect(many.slice(0, 3)).toEqual(point.map((r, i) => ({ ...r, rowId: String(i + 1) })));
  });

  it('micro-batch and file path agree on the hardened set (one-typo emails, surname typos, rows without geography)', async () => {
    const set = await generateHardenedSet(g.warehouse, 'graph', 2100, 7);
    const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
    const big = await matcher.matchBatch(rows, ALL);
    const small: typeof big = [];
    for (let i = 0; i < rows.length; i += 100) small.push(...(await matcher.matchBatch(rows.slice(i, i + 100), ALL)));
    expect(small).toEqual(big);
    expect(big.filter((r) => r.matchLevel === 'I').length).toBeGreaterThan(1000);
  });

  it('matchStaged gives every decision once and in order whether emit answers at once or with a promise (a progress write)', async () => {
    const set = await generateLabelledSet(g.warehouse, 'graph', 2100, 7);
    const staged = stageRows(set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 })));
    try {
      const sync: StagedDecision[] = [];
      await matcher.matchStaged(staged, ALL, (d) => {
        sync.push(d);
      });
      const async: StagedDecision[] = [];
      let calls = 0;
      await matcher.matchStaged(staged, ALL, (d) => {
        async.push(d);
        // every third decision waits a turn of the event loop, as the resolver's progress write does
        return ++calls % 3 === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
      });
      expect(sync.length).toBeGreaterThan(1000);
      expect(async).toEqual(sync);
      expect(sync.map((d) => d.r)).toEqual([...sync.map((d) => d.r)].sort((a, b) => a - b));
      expect(new Set(sync.map((d) => d.r)).size).toBe(sync.length);
    } finally {
      staged.cleanup();
    }
  });

  it('SQL features equal scoreCandidate features, and file path (TSV and VALUES staging) equals micro-batch path (point lookups)', async () => {
    const set = await generateLabelledSet(g.warehouse, 'graph', 2100, 5);
    const rows = set.map((s, i) => normalizeMatchInput(s.record, { position: i + 1 }));
    const big = await matcher.matchBatch(rows, ALL); // > 2000 rows: staged through files, hash joins
    const small: typeof big = [];
    for (let i = 0; i < rows.length; i += 100) small.push(...(await matcher.matchBatch(rows.slice(i, i + 100), ALL)));
    expect(small).toEqual(big);
    // 1001-2000 rows: hash joins over rows inlined as VALUES.
    expect(await matcher.matchBatch(rows.slice(0, 1500), ALL)).toEqual(big.slice(0, 1500));

    // Rebuild candidate attributes in JS from the release (no match index) and rescore.
    const picked = big
      .map((r, i) => [r, i] as const)
      .filter(([r]) => r.matchLevel === 'I')
      .slice(0, 150);
    for (const [r, i] of picked) {
      const key = r.personKey!;
      const [pp] = await q(`SELECT *, strftime(dob, '%Y-%m-%d') AS dobs FROM graph.persons WHERE person_key = ${key}`);
      const emails = await q(`SELECT email FROM graph.emails WHERE person_key = ${key}`);
      const phones = await q(`SELECT phone_sha256 FROM graph.phones WHERE person_key = ${key}`);
      const addrs = await q(`SELECT * FROM graph.addresses WHERE person_key = ${key}`);
      const cand: CandidateAttributes = {
        personKey: key,
        householdKey: pp!.household_key,
        firstName: pp!.first_name,
        lastName: pp!.last_name,
        nickname: pp!.nickname,
        dob: pp!.dobs,
        zip5: pp!.zip5,
        emailHashes: emails.flatMap((e) => [emailSha256(e.email), emailSha256(emailMatchKey(e.email))]),
        emailKeys: emails.map((e) => emailMatchKey(e.email)),
        phoneHashes: phones.map((f) => f.phone_sha256),
        addresses: addrs.map((a) => {
          const k = addressKey(
            normalizeAddress({ address_1: a.address_1, address_2: a.address_2, city: a.city, state: a.state, zip: a.zip5 }).value!,
          )!;
          return { key: k.key, unit: k.unit, isCurrent: a.is_current };
        }),
      };
      const s = scoreCandidate(rows[i]!, cand);
      expect(s.individualType, `row ${i} ${JSON.stringify(set[i]!.record)}`).toBe(r.matchType);
      expect(Math.abs(s.probability - r.matchConfidence!)).toBeLessThan(1e-3);
    }
  });
});
