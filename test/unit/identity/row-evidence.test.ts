/**
 * Rows no candidate can help are not blocked (row-evidence.ts). Proven against the real comparator: over thousands
 * of random rows and persons built to agree or disagree with them field by field, compareRecord never gives a
 * vector outside possibleFeatures of the row's evidence, so a row rowCanQualify rejects has no candidate canQualify
 * accepts. Fixed rows show which rows are left out (name + ZIP, no dob) and which are not.
 */
import { describe, expect, it } from 'vitest';
import { packFeatures } from '../../../src/identity/matcher/candidates.ts';
import { compareRecord } from '../../../src/identity/matcher/compare.ts';
import { KIND, nameBlockZips, rowKeySources } from '../../../src/identity/matcher/keys.ts';
import { canQualify } from '../../../src/identity/matcher/levels.ts';
import { stageLines, variantsCache } from '../../../src/identity/matcher/stage-lines.ts';
import {
  fullNameCanHelp,
  matchKeys,
  matchKeySources,
  possibleFeatures,
  rowCanQualify,
  rowEvidence,
  type RowEvidence,
} from '../../../src/identity/matcher/row-evidence.ts';
import type { CandidateAttributes } from '../../../src/identity/matcher/types.ts';
import { emailSha256 } from '../../../src/identity/normalize/email.ts';
import { phoneSha256 } from '../../../src/identity/normalize/phone.ts';
import { localityZips, normalizeMatchInput, type NormalizedRecord } from '../../../src/identity/normalize/record.ts';
import { cityZip5s } from '../../../src/identity/normalize/address/city-zips.ts';

let seed = 7;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const maybe = <T>(p: number, v: T) => (rnd() < p ? v : undefined);

function randomInput(): Record<string, unknown> {
  const street = pick([
    { address_1: '12 Main St', zip: '02134' },
    { address_1: '12 Main St', address_2: 'Apt 4', zip: '02134' },
    { address_1: '7 Elm Street', city: 'Boston', state: 'MA' },
    { zip: '02135' },
    { city: 'Springfield', state: 'MA' },
    {},
  ]);
  return {
    first_name: maybe(0.8, pick(['John', 'Jon', 'Robert', 'Bob', 'J', 'Mary Ann'])),
    last_name: maybe(0.85, pick(['Smith', 'Smythe', 'Jones', 'Lee'])),
    email: maybe(0.3, pick(['john.smith@gmail.com', 'jsmith@example.com'])),
    phone: maybe(0.3, pick(['617-555-0101', '(617) 555-0199'])),
    dob: maybe(0.6, pick(['1980-03-12', '03/12/1980', '1980-03', '1980', '1980-12-03'])),
    ...street,
  };
}

function randomPerson(row: NormalizedRecord): CandidateAttributes {
  const key = row.addressKeys.find((k) => k !== null) ?? row.cityAddressKeys[0] ?? null;
  const addresses =
    key && rnd() < 0.6
      ? [
          {
            key: pick([key.key, key.key.replace(/^\d+/, '14'), key.key.replace(/\|[^|]+\|/, '|OAK|')]),
            unit: pick([key.unit, null, '9']),
            isCurrent: rnd() < 0.7,
          },
        ]
      : [];
  const email = row.emails[0];
  const phone = row.phones[0];
  return {
    personKey: 1n,
    householdKey: 1n,
    firstName: maybe(0.9, pick(['JOHN', 'JON', 'ROBERT', 'MARY ANN', 'SMITH', 'JOHAN'])) ?? null,
    lastName: maybe(0.9, pick(['SMITH', 'SMYTH', 'JONES', 'LEE', 'JOHN'])) ?? null,
    nickname: maybe(0.3, 'BOB') ?? null,
    dob: maybe(0.9, pick(['1980-03-12', '1980-03-21', '1980-03-13', '1981-03-12', '1980-03-30', '1975-01-01'])) ?? null,
    zip5: maybe(0.9, pick(['02134', '02135', '01101', '90210'])) ?? null,
    emailHashes: email && rnd() < 0.5 ? [email.sha256] : [emailSha256('other@example.com')],
    emailKeys: email && rnd() < 0.5 ? [pick([email.matchKey, email.matchKey.replace('@', 'x@'), 'john.smith@yahoo.com'])] : [],
    phoneHashes: phone && rnd() < 0.5 ? [phone.sha256] : [phoneSha256('+16175550000')],
    addresses,
  };
}

const evidence = (over: Partial<RowEvidence>): RowEvidence => ({
  email: false,
  phone: false,
  addressKey: false,
  house: false,
  zip: false,
  address: false,
  dob: null,
  first: true,
  last: true,
  ...over,
});

describe('rows no candidate can help', () => {
  it('name + ZIP without a dob, or with a year alone, cannot qualify; a dob, a street, an email or a phone can', () => {
    expect(rowCanQualify(evidence({ zip: true, address: true }))).toBe(false);
    expect(rowCanQualify(evidence({}))).toBe(false);
    expect(rowCanQualify(evidence({ zip: true, address: true, dob: 'year' }))).toBe(false);
    expect(rowCanQualify(evidence({ dob: 'whole' }))).toBe(true); // name + dob
    expect(rowCanQualify(evidence({ zip: true, address: true, dob: 'month' }))).toBe(true); // name + ZIP + dob year and month
    expect(rowCanQualify(evidence({ dob: 'month' }))).toBe(false); // ... but not without the ZIP
    expect(rowCanQualify(evidence({ addressKey: true, house: true, zip: true, address: true }))).toBe(true);
    expect(rowCanQualify(evidence({ email: true, first: false, last: false }))).toBe(true);
    expect(rowCanQualify(evidence({ phone: true, first: false, last: false }))).toBe(true);
    expect(rowCanQualify(evidence({ first: false, dob: 'whole', zip: true, address: true }))).toBe(false); // surname + dob + ZIP: one group short
  });

  it('such a row looks up no block; any other row looks up all of its blocks', () => {
    const nameZip = normalizeMatchInput({ first_name: 'John', last_name: 'Smith', zip: '02134' });
    expect(rowKeySources(nameZip).length).toBeGreaterThan(2);
    expect(matchKeySources(nameZip)).toEqual([]);
    expect(matchKeys(nameZip)).toEqual([]);
    for (const rec of [
      { first_name: 'John', last_name: 'Smith', zip: '02134', dob: '1980-03-12' },
      { email: 'john@example.com' },
      { first_name: 'John', last_name: 'Smith', address_1: '12 Main St', zip: '02134' },
    ]) {
      const row = normalizeMatchInput(rec);
      expect(matchKeySources(row)).toEqual(rowKeySources(row).filter((k) => k.kind !== KIND.fullName || fullNameCanHelp(row)));
      expect(matchKeySources(row).some((k) => k.kind === KIND.street) || !rec.address_1).toBe(true);
    }
  });

  it('a staged file holds no line for such a row, but its names and spatial ZIP (its r is kept)', () => {
    const rows = [
      { first_name: 'John', last_name: 'Smith', zip: '02134' },
      { first_name: 'Ann', last_name: 'Lee', zip: '02135', dob: '1980-03-12' },
    ].map((rec) => normalizeMatchInput(rec));
    const lines = stageLines(rows, 10, null, variantsCache());
    const rowLines = new TextDecoder().decode(lines.rows).trim().split('\n');
    expect(rowLines.map((l) => l.split('\t').slice(0, 3))).toEqual([['11', 'ANN', 'LEE']]);
    expect(
      new TextDecoder()
        .decode(lines.keys)
        .trim()
        .split('\n')
        .every((l) => l.startsWith('11\t')),
    ).toBe(true);
    expect([lines.rowCount, lines.names, [...lines.zips]]).toEqual([2, 'JOHN\tSMITH\tANN\tLEE', [2134, 2135]]);
    // A direct key (a verified iag_person_id) keeps the line: the direct statement reads it.
    expect(
      new TextDecoder()
        .decode(stageLines(rows, 10, [7n, null], variantsCache()).rows)
        .trim()
        .split('\n').length,
    ).toBe(2);
  });

  it('compareRecord never gives a row a vector outside possibleFeatures of its evidence (8,000 random pairs)', () => {
    const possible = new Map<string, Set<number>>();
    let undecidableRows = 0;
    let qualifying = 0;
    const seen = {
      email: new Set<number>(),
      address: new Set<number>(),
      dob: new Set<number>(),
      first: new Set<number>(),
      last: new Set<number>(),
    };
    for (let i = 0; i < 4000; i++) {
      const row = normalizeMatchInput(randomInput());
      const e = rowEvidence(row);
      const sig = JSON.stringify(e);
      if (!possible.has(sig)) possible.set(sig, new Set([...possibleFeatures(e)].map(packFeatures)));
      if (!rowCanQualify(e)) undecidableRows++;
      for (let j = 0; j < 2; j++) {
        const f = compareRecord(row, randomPerson(row));
        for (const k of Object.keys(seen) as (keyof typeof seen)[]) seen[k].add(f[k]);
        expect(possible.get(sig)!.has(packFeatures(f)), JSON.stringify({ e, f })).toBe(true);
        if (canQualify(f)) {
          qualifying++;
          expect(rowCanQualify(e)).toBe(true);
        }
      }
    }
    // Both kinds of row and plenty of qualifying vectors, so the assertions above are exercised.
    expect(undecidableRows).toBeGreaterThan(400);
    expect(qualifying).toBeGreaterThan(1000);
    expect(possible.size).toBeGreaterThan(30);
    // Every level of every feature occurs (email 4, address 7, dob 8, first 7, last 6).
    expect([...Object.values(seen)].map((s) => s.size)).toEqual([4, 7, 8, 7, 6]);
  });

  it('the check can fail: evidence that forgets the dob misses vectors the comparator gives', () => {
    let missed = 0;
    for (let i = 0; i < 500; i++) {
      const row = normalizeMatchInput({ ...randomInput(), dob: '1980-03-12' });
      const forgetful = new Set([...possibleFeatures({ ...rowEvidence(row), dob: null })].map(packFeatures));
      if (!forgetful.has(packFeatures(compareRecord(row, randomPerson(row))))) missed++;
    }
    expect(missed).toBeGreaterThan(100);
  });
});

/**
 * A graph person's d:, n: and fl: block strings, as match-index.ts builds them (dob with each name; surname in each ZIP;
 * first name or nickname with the surname), none capped but fl: (a test pair is never in a common block).
 */
function personBlocks(p: CandidateAttributes): Set<string> {
  const out = new Set<string>();
  for (const n of [p.firstName, p.lastName]) if (p.dob && n) out.add(`d:${p.dob}|${n}`);
  if (p.lastName && p.zip5) out.add(`n:${p.lastName}|${p.zip5}`);
  for (const f of [p.firstName, p.nickname]) if (f && p.lastName) out.add(`fl:${f}|${p.lastName}`);
  return out;
}

describe('full-name blocks only where they can help', () => {
  const houston = cityZip5s('HOUSTON', 'TX');

  it('a big city without its ZIP and a dob keeps them; a ZIP, a small city or no dob does not', () => {
    const keys = (rec: Record<string, unknown>) =>
      matchKeySources(normalizeMatchInput(rec))
        .filter((k) => k.kind === KIND.fullName)
        .map((k) => k.s);
    const name = { first_name: 'Bob', last_name: 'Smith' };
    expect(houston.length).toBeGreaterThan(20);
    const bigCity = keys({ ...name, city: 'Houston', state: 'TX', dob: '1980-03-12' });
    expect(bigCity).toEqual(expect.arrayContaining(['fl:BOB|SMITH', 'fl:ROBERT|SMITH', 'fl:SMITH|BOB']));
    expect(keys({ ...name, city: 'Houston', state: 'TX', dob: '1980-03' })).toEqual(bigCity); // a year and month is near
    expect(keys({ ...name, city: 'Houston', state: 'TX', zip: '77002', dob: '1980-03-12' })).toEqual([]); // its ZIP has n: blocks
    expect(keys({ ...name, city: 'Cambridge', state: 'MA', dob: '1980-03-12' })).toEqual([]); // a small city's ZIPs all have them
    expect(keys({ ...name, dob: '1980-03-12' })).toEqual([]); // no locality: only an exact dob could make I, and d: finds it
    // Model fitting still stages every block.
    expect(rowKeySources(normalizeMatchInput({ ...name, dob: '1980-03-12' })).some((k) => k.kind === KIND.fullName)).toBe(true);
  });

  it('no candidate found by full-name blocks alone qualifies for a row where they are left out (10,000 random pairs)', () => {
    let fullNameOnly = 0;
    let qualifying = 0;
    let leftOut = 0;
    for (let i = 0; i < 5000; i++) {
      const place = pick([
        { city: 'Houston', state: 'TX' },
        { city: 'Houston', state: 'TX', zip: '77002' },
        { city: 'Cambridge', state: 'MA' },
        { zip: '02134' },
        {},
      ]);
      const row = normalizeMatchInput({
        first_name: pick(['John', 'Bob', 'Robert', 'J']),
        last_name: pick(['Smith', 'Lee']),
        dob: maybe(0.8, pick(['1980-03-12', '1980-03', '1980'])),
        ...place,
      });
      const rowBlocks = rowKeySources(row).map((k) => k.s);
      const zips = localityZips(row);
      for (let j = 0; j < 2; j++) {
        const person: CandidateAttributes = {
          personKey: 1n,
          householdKey: 1n,
          firstName: pick(['JOHN', 'ROBERT', 'SMITH', 'LEE', 'JON']),
          lastName: pick(['SMITH', 'LEE', 'JOHN', 'BOB']),
          nickname: maybe(0.4, 'BOB') ?? null,
          dob: pick(['1980-03-12', '1980-03-13', '1980-12-03', '1980-03-30', '1975-01-01']),
          zip5: pick([...zips.slice(0, 3), pick(houston), '90210']) ?? '90210',
          emailHashes: [],
          emailKeys: [],
          phoneHashes: [],
          addresses: [],
        };
        const graph = personBlocks(person);
        const hits = rowBlocks.filter((s) => graph.has(s));
        if (hits.length === 0 || !hits.every((s) => s.startsWith('fl:'))) continue;
        fullNameOnly++;
        if (!fullNameCanHelp(row)) leftOut++;
        if (canQualify(compareRecord(row, person))) {
          qualifying++;
          expect(
            fullNameCanHelp(row),
            JSON.stringify({ row: row.name, zips: nameBlockZips(row).length, person: { ...person, personKey: 1, householdKey: 1 } }),
          ).toBe(true);
        }
      }
    }
    // Both outcomes occur often: candidates the full-name blocks alone find that qualify (a big city, a near dob) and
    // rows whose full-name-only candidates are left out.
    expect(qualifying).toBeGreaterThan(10);
    expect(leftOut).toBeGreaterThan(200);
    expect(fullNameOnly).toBeGreaterThan(qualifying + leftOut - 1);
  });
});
