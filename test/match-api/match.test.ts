import { ECHO_FIELDS } from '../../src/modules/matching/schemas.ts';
/**
 * POST /v1/match over HTTP on a small generated graph: levels and ids, organization-salted ids,
 * direct refresh and its fallbacks, per-row warnings, field selection and PII, limits, scopes, and no
 * reverse lookup of people through levels below I or their ids (decision 051).
 * Billing, idempotency and scratch segments: billing.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg } from '../helpers/app.ts';
import { byNameAddress, byNameEmail, NOBODY, pickPersons, setup, title, type MatchTest, type Row } from './setup.ts';

let m: MatchTest;
let people: Row[];

beforeAll(async () => {
  m = await setup();
  people = await pickPersons(m, 6);
}, 120_000);
afterAll(async () => m?.close());

const ID01 = /^[A-Z0-9]{2,16}_01_[A-Z2-7]{26}$/;

/** The enrichment attributes of a match record: every key that is not an echoed input or a record field (spec 2). */
const RECORD_KEYS = new Set<string>([
  ...ECHO_FIELDS,
  'row_id',
  'iag_person_id',
  'match_level',
  'match_type',
  'match_confidence',
  'warnings',
]);
const attrs = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !RECORD_KEYS.has(k)));

describe('POST /v1/match: results', () => {
  it('matches, echoes inputs unchanged, enriches matched rows only, and derives labels for unmatched rows', async () => {
    const [a, b] = people;
    const records = [
      { row_id: 'a', ...byNameEmail(a!, { email: `  ${a!.email.toUpperCase()} ` }) },
      byNameAddress(b!),
      { row_id: 'nobody', ...NOBODY },
    ];
    const res = await m.match({ records });
    expect(res.status).toBe(200);
    const out = res.body.records;
    expect(out.map((r: Row) => r.row_id)).toEqual(['a', '2', 'nobody']);
    expect(out[0]).toMatchObject({
      match_level: 'I',
      match_type: 'email+name',
      email: `  ${a!.email.toUpperCase()} `,
      first_name: title(a!.first_name),
    });
    expect(out[0].iag_person_id).toMatch(ID01);
    expect(out[0].match_confidence).toBeGreaterThan(0.9);
    expect(out[1]).toMatchObject({ match_level: 'I', match_type: 'name_address', address_1: title(b!.address_1) });
    // Default field set (spec 4.5): every field tagged audience or feature_store, beside the echoed
    // inputs; geography included; never names or addresses.
    expect(attrs(out[0])).toMatchObject({
      age: a!.age,
      gender: a!.gender,
      homeowner: a!.homeowner,
      zip5: a!.zip5,
      enriched_city: a!.city,
      enriched_state: a!.state,
    });
    expect(attrs(out[0])).toHaveProperty('zip3');
    expect(Array.isArray(out[0].interests)).toBe(true);
    for (const pii of ['enriched_first_name', 'enriched_last_name', 'enriched_address_1', 'enriched_dob', 'lat'])
      expect(out[0]).not.toHaveProperty(pii);
    expect(out[0].first_name).toBe(title(a!.first_name)); // the input echo keeps the plain name
    expect(out[2]).toMatchObject({ match_level: null, match_type: null, match_confidence: null });
    expect(attrs(out[2])).toEqual({});
    expect(out[2].iag_person_id).toMatch(/_02_[A-Z2-7]{32}$/);
    expect(res.body).toMatchObject({ match_count: 2, record_count: 3, amount_charged: 0.02, scratch_segment: null });
    expect(res.body.data_release).toEqual({ major: expect.any(Number), minor: expect.any(Number) });
  });

  it('warms the current match index on request (ads serve does it after start) and matches the same', async () => {
    const before = (await m.match({ records: [byNameEmail(people[0]!)] })).body.records[0];
    const w = await m.t.services.matching.warm({ keys: 2000, persons: 500 });
    expect(w).toMatchObject({ keys: 2000, persons: 500 });
    expect(w.release).toMatch(/^graph-/);
    expect((await m.match({ records: [byNameEmail(people[0]!)] })).body.records[0]).toEqual(before);
  });

  it('one bad value is a row warning, never a failed batch', async () => {
    const [a, b] = people;
    const res = await m.match({
      records: [
        byNameAddress(a!, { dob: '1990-02-31' }),
        byNameAddress(b!, { email: 'not-an-email', phone: '12', state: 'QQ', customer_ref: 'x1' }),
        { email: 42 },
      ],
    });
    expect(res.status).toBe(200);
    const [r1, r2, r3] = res.body.records;
    expect(r1.match_level).toBe('I');
    expect(r1.warnings.map((w: Row) => w.field)).toContain('dob');
    expect(r1.dob).toBe('1990-02-31');
    expect(r2.warnings.map((w: Row) => w.field)).toEqual(expect.arrayContaining(['email', 'phone', 'customer_ref']));
    expect(r2.warnings.find((w: Row) => w.field === 'customer_ref').code).toBe('unknown_field');
    expect(r2).not.toHaveProperty('customer_ref');
    expect(r3).toMatchObject({ row_id: '3', match_level: null, email: 42, iag_person_id: null });
    expect(r3.warnings[0].field).toBe('email');
  });

  it('match_level restricts the allowed levels', async () => {
    const [a] = people;
    const res = await m.match({ records: [byNameEmail(a!)], match_level: ['A'] });
    expect(res.body.records[0].match_level).toBeNull();
    expect(res.body.amount_charged).toBe(0);
    const d = await m.match({ records: [{ email: a!.email }], match_level: ['D'] });
    expect(d.body.records[0]).toMatchObject({ match_level: 'D', match_type: 'email' });
  });
});

describe('iag_person_id', () => {
  it('is stable within an organization and different in another one', async () => {
    const [a] = people;
    const first = (await m.match({ records: [byNameEmail(a!)] })).body.records[0].iag_person_id;
    const again = (await m.match({ records: [byNameAddress(a!)] })).body.records[0].iag_person_id;
    expect(again).toBe(first);
    const other = await createTestOrg(m.t, { name: 'Other Org' });
    const theirs = (await m.match({ records: [byNameEmail(a!)] }, { token: await other.token() })).body.records[0].iag_person_id;
    expect(theirs).toMatch(ID01);
    expect(theirs).not.toBe(first);
    expect(theirs.split('_')[2]).not.toBe(first.split('_')[2]);
  });

  it('a valid tier-01 id of this organization goes straight to its person (direct refresh)', async () => {
    const [a] = people;
    const id = (await m.match({ records: [byNameEmail(a!)] })).body.records[0].iag_person_id;
    const res = await m.match({ records: [{ iag_person_id: id }], template_id: 'standard_iag' });
    expect(res.body.records[0]).toMatchObject({ iag_person_id: id, match_level: 'I', match_type: 'person_id', match_confidence: 1 });
    // An id is no identity: identity fields come back only for the caller's own identifying input (decision 051).
    expect(res.body.records[0]).not.toHaveProperty('enriched_first_name');
    expect(res.body.records[0].warnings.map((w: Row) => w.code)).toContain('pii_withheld');
  });

  it('a foreign, malformed or derived id falls back to the other fields', async () => {
    const [a, b] = people;
    const mine = (await m.match({ records: [byNameEmail(a!)] })).body.records[0].iag_person_id;
    const other = await createTestOrg(m.t, { name: 'Foreign Org' });
    const foreign = (await m.match({ records: [byNameEmail(b!)] }, { token: await other.token() })).body.records[0].iag_person_id;
    const derived = (await m.match({ records: [NOBODY] })).body.records[0].iag_person_id;
    expect(derived).toMatch(/_02_/);
    const res = await m.match({
      records: [
        byNameEmail(a!, { iag_person_id: foreign }),
        byNameEmail(a!, { iag_person_id: 'NOTANID_01_XYZ' }),
        byNameEmail(a!, { iag_person_id: derived }),
        { iag_person_id: foreign },
      ],
    });
    for (const r of res.body.records.slice(0, 3)) {
      expect(r).toMatchObject({ iag_person_id: mine, match_level: 'I', match_type: 'email+name' });
      expect(r.warnings.map((w: Row) => w.code)).toContain('person_id_not_usable');
    }
    expect(res.body.records[3]).toMatchObject({ match_level: null, iag_person_id: null });
  });
});

describe('field selection', () => {
  it('standard_iag returns identity fields at level I and withholds them below I', async () => {
    const [a] = people;
    const res = await m.match({
      records: [byNameEmail(a!), { address_1: title(a!.address_1), city: a!.city, state: a!.state, zip: a!.zip5 }],
      template_id: 'standard_iag',
    });
    const [i, addr] = res.body.records;
    expect(attrs(i)).toEqual(
      expect.objectContaining({
        enriched_first_name: a!.first_name,
        enriched_last_name: a!.last_name,
        enriched_address_1: a!.address_1,
        zip5: a!.zip5,
        enriched_dob: a!.dobs,
      }),
    );
    expect(i).not.toHaveProperty('age');
    expect(['H', 'A']).toContain(addr.match_level);
    expect(attrs(addr)).toEqual({ enriched_city: a!.city, enriched_state: a!.state, zip5: a!.zip5 });
    expect(addr.warnings.map((w: Row) => w.code)).toContain('pii_withheld');
  });

  it('field_list returns exactly the named fields (aliases accepted)', async () => {
    const [a] = people;
    const res = await m.match({ records: [byNameEmail(a!)], field_list: ['age', 'zip', 'income_band'] });
    expect(Object.keys(attrs(res.body.records[0])).sort()).toEqual(['age', 'income_band', 'zip5']);
  });

  it('unknown fields and field_list with template_id are 400', async () => {
    const bad = await m.match({ records: [NOBODY], field_list: ['age', 'shoe_size', 'favourite_colour'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('UNKNOWN_FIELD');
    expect(bad.body.message).toContain('shoe_size');
    expect(bad.body.unknown_fields).toEqual(['shoe_size', 'favourite_colour']);
    const both = await m.match({ records: [NOBODY], field_list: ['age'], template_id: 'standard_iag' });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('AMBIGUOUS_FIELD_SELECTION');
    const tpl = await m.match({ records: [NOBODY], template_id: 'premium' });
    expect(tpl.status).toBe(400);
  });
});

describe('request limits and access', () => {
  it('takes 100 records and refuses 101', async () => {
    const ok = await m.match({ records: Array.from({ length: 100 }, (_, i) => ({ last_name: `Nobody${i}`, zip: '99999' })) });
    expect(ok.status).toBe(200);
    expect(ok.body.record_count).toBe(100);
    const res = await m.match({ records: Array.from({ length: 101 }, () => ({ email: 'x@example.com' })) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('TOO_MANY_RECORDS');
    const empty = await m.match({ records: [] });
    expect(empty.status).toBe(400);
  });

  it('row_id errors reject the whole request', async () => {
    for (const [records, code] of [
      [[{ row_id: '  ' }, NOBODY], 'INVALID_ROW_ID'],
      [[{ row_id: 7, ...NOBODY }], 'INVALID_ROW_ID'],
      [[{ row_id: 'x', ...NOBODY }, { row_id: 'x' }], 'DUPLICATE_ROW_ID'],
      [[{ row_id: '2', ...NOBODY }, { email: 'y@example.com' }], 'DUPLICATE_ROW_ID'],
    ] as const) {
      const res = await m.match({ records });
      expect(res.status, JSON.stringify(records)).toBe(400);
      expect(res.body.error).toBe(code);
    }
  });

  it('needs the creator scope and a bearer', async () => {
    const discovery = await m.org.token(['discovery']);
    const res = await m.match({ records: [NOBODY] }, { token: discovery });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SCOPE_REQUIRED');
    const anon = await m.t.app.inject({ method: 'POST', url: '/v1/match', payload: { records: [NOBODY] } });
    expect(anon.statusCode).toBe(401);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await m.t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/v1/match'].post.tags).toEqual(['Matching']);
  });
});

/*
 * Matching must not become a reverse lookup of people (issue #31 point 2; decision 051): a made-up name at a
 * real address, or an email/phone alone, matches below I; the id such a match issues, sent alone, must not
 * answer at I nor return the resident's or owner's name, birth date or address; and the levels below I carry
 * only the enrichment fields decision 051 allows them.
 */
const IDENTITY = [
  'enriched_first_name',
  'middle_name',
  'enriched_last_name',
  'name_suffix',
  'enriched_dob',
  'enriched_address_1',
  'enriched_address_2',
];
/** The identity values of a person that must never come back to a caller who did not supply them. */
const secretsOf = (p: Row) => [p.first_name, p.last_name, p.dobs, p.address_1].filter((v) => typeof v === 'string');
const leaked = (record: Row, p: Row) => {
  const shown = IDENTITY.map((k) => record[k]).filter((v) => v !== undefined && v !== null);
  return secretsOf(p).filter((s) => shown.includes(s));
};

/** A made-up person at p's street address. */
const strangerAt = (p: Row, houseNumber?: string) => ({
  first_name: 'Zebulon',
  last_name: 'Quxworthy',
  address_1: houseNumber ? title(p.address_1).replace(/^\d+/, houseNumber) : title(p.address_1),
  city: title(p.city),
  state: p.state,
  zip: p.zip5,
});

describe('reverse lookup through matching (issue #31, decision 051)', () => {
  it("a made-up name at a real address answers below I; its id alone neither answers at I nor returns the resident's name, dob or address", async () => {
    const p = people[0]!;
    const near = String(Number(/^\d+/.exec(p.address_1)![0]) + 2);
    const first = await m.match({
      records: [
        { row_id: 'same', ...strangerAt(p) },
        { row_id: 'near', ...strangerAt(p, near) },
      ],
      template_id: 'standard_iag',
    });
    expect(first.status).toBe(200);
    const [same, nearby] = first.body.records;
    expect(['A', 'S', 'H']).toContain(same.match_level);
    expect(leaked(same, p)).toEqual([]);
    const ids = [same, nearby].filter((r: Row) => r.match_level !== null).map((r: Row) => r.iag_person_id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const refresh = await m.match({ records: [{ iag_person_id: id }], template_id: 'standard_iag' });
      expect(refresh.status).toBe(200);
      const r = refresh.body.records[0];
      expect(r.match_level).not.toBe('I');
      expect(leaked(r, p)).toEqual([]);
      for (const k of IDENTITY) expect(r[k] ?? null).toBeNull();
      // Not through a field list either.
      const named = (
        await m.match({
          records: [{ iag_person_id: id }],
          field_list: ['first_name', 'last_name', 'dob', 'address_1', 'age', 'household_income'],
        })
      ).body.records[0];
      expect(named.match_level).not.toBe('I');
      for (const k of [...IDENTITY, 'age', 'household_income']) expect(named[k] ?? null).toBeNull();
    }
  });

  it('an email alone or a phone alone (D) leads to no name or birth date through its id', async () => {
    const p = people[1]!;
    const [phone] = await m.q(`SELECT min(phone) AS phone FROM graph.phones WHERE person_key = ${p.person_key}`);
    const rows: Row[] = [{ row_id: 'e', email: p.email }];
    if (phone?.phone) rows.push({ row_id: 'p', phone: phone.phone });
    const first = await m.match({ records: rows, template_id: 'standard_iag' });
    const digital = first.body.records.filter((r: Row) => r.match_level === 'D');
    expect(digital.length).toBeGreaterThan(0);
    for (const d of digital) {
      expect(leaked(d, p)).toEqual([]);
      const r = (await m.match({ records: [{ iag_person_id: d.iag_person_id }], template_id: 'standard_iag' })).body.records[0];
      expect(r.match_level).not.toBe('I');
      expect(leaked(r, p)).toEqual([]);
      for (const k of IDENTITY) expect(r[k] ?? null).toBeNull();
    }
  });

  it("an id issued by an I match refreshes at I without identity fields (they are returned only for the caller's own identifying input)", async () => {
    const p = people[2]!;
    const honest = (await m.match({ records: [byNameEmail(p)], template_id: 'standard_iag' })).body.records[0];
    expect(honest).toMatchObject({ match_level: 'I', enriched_last_name: p.last_name, enriched_dob: p.dobs });
    const r = (await m.match({ records: [{ iag_person_id: honest.iag_person_id }], field_list: ['last_name', 'dob', 'age'] })).body
      .records[0];
    expect(r).toMatchObject({ iag_person_id: honest.iag_person_id, match_level: 'I', match_type: 'person_id', age: p.age });
    for (const k of IDENTITY) expect(r[k] ?? null).toBeNull();
    expect(r.warnings.map((w: Row) => w.code)).toContain('pii_withheld');
  });

  it('A, S, H and D answers carry only the fields decision 051 allows them: no exact age, no household income', async () => {
    const p = people[3]!;
    const fields = ['age', 'household_income', 'income_band', 'home_value', 'gender', 'zip5', 'state', 'dwelling_type'];
    const res = await m.match({
      records: [
        { row_id: 'a', ...strangerAt(p) },
        { row_id: 'd', email: p.email },
      ],
      field_list: fields,
    });
    const [a, d] = res.body.records;
    expect(['A', 'S', 'H']).toContain(a.match_level);
    expect(d.match_level).toBe('D');
    for (const r of [a, d]) {
      for (const k of ['age', 'household_income', 'home_value']) expect(r[k] ?? null).toBeNull();
      expect(r.warnings.map((w: Row) => w.code)).toContain('withheld_at_level');
    }
    // What each level may carry (decision 051): the address's geography and dwelling at A/S/H; the state at D.
    expect(a).toMatchObject({ zip5: p.zip5, enriched_state: p.state, dwelling_type: p.dwelling_type });
    expect(a.gender ?? null).toBeNull();
    expect(d).toMatchObject({ enriched_state: p.state, gender: p.gender });
    expect(d.zip5 ?? null).toBeNull();
    // The same fields for an honest I match: all of them, exact.
    const i = (await m.match({ records: [byNameEmail(p)], field_list: fields })).body.records[0];
    expect(i).toMatchObject({ match_level: 'I', age: p.age, household_income: p.household_income, zip5: p.zip5 });
  });
});
