/**
 * POST /v1/match on messy customer-list rows (issue #15): nicknames with a misspelt surname and no
 * geography, a ZIP without a street, swapped names in shouting case, and addresses the graph does
 * not know. Levels are claimed only on evidence: a made-up street in a real ZIP is unmatched and free;
 * a made-up house number on a real street is spatial.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, title, type MatchTest, type Row } from './setup.ts';

let m: MatchTest;
let p: Row;
let street: Row;

const NICK: Record<string, string> = {
  ROBERT: 'Bob',
  WILLIAM: 'Bill',
  JAMES: 'Jim',
  MICHAEL: 'Mike',
  JOSEPH: 'Joe',
  THOMAS: 'Tom',
  DANIEL: 'Dan',
  DAVID: 'Dave',
  ELIZABETH: 'Liz',
  JENNIFER: 'Jenny',
  CHRISTOPHER: 'Chris',
  MATTHEW: 'Matt',
  RICHARD: 'Rick',
};
/** The last two letters swapped: "Johnson" -> "Johnsno". */
const transpose = (s: string) => s.slice(0, -2) + s.slice(-1) + s.slice(-2, -1);

beforeAll(async () => {
  m = await setup();
  [p] = await m.q(`SELECT p.*, strftime(p.dob, '%Y-%m-%d') AS dobs FROM graph.persons p
    WHERE age >= 25 AND dob IS NOT NULL AND length(last_name) >= 6 AND first_name IN (${Object.keys(NICK)
      .map((n) => `'${n}'`)
      .join(', ')})
    ORDER BY person_key LIMIT 1`);
  // A street of a ZIP with residences on it and its highest house number.
  [street] = await m.q(`WITH a AS (SELECT zip5, regexp_extract(address_1, '^([0-9]+) ', 1)::INTEGER AS h,
      regexp_replace(address_1, '^[0-9]+ ', '') AS name FROM graph.addresses WHERE is_current AND regexp_matches(address_1, '^[0-9]+ [A-Z]'))
    SELECT name, zip5, max(h) AS hi, count(*) AS n FROM a GROUP BY name, zip5 ORDER BY n DESC, name, zip5 LIMIT 1`);
}, 120_000);
afterAll(async () => m?.close());

const ID01 = /^[A-Z0-9]{2,16}_01_[A-Z2-7]{26}$/;

describe('POST /v1/match on messy rows', () => {
  it('a nickname, a misspelt surname and a dob find the person at I (no address at all), with the id of the clean row', async () => {
    const clean = { first_name: title(p.first_name), last_name: title(p.last_name), dob: p.dobs };
    const messy = { first_name: NICK[p.first_name], last_name: title(transpose(p.last_name)), dob: p.dobs };
    const res = await m.match({ records: [clean, messy] });
    expect(res.status).toBe(200);
    const [a, b] = res.body.records;
    expect(a).toMatchObject({ match_level: 'I', match_type: 'name_dob' });
    expect(b).toMatchObject({ match_level: 'I', match_type: 'name_dob', first_name: NICK[p.first_name] });
    expect(b.iag_person_id).toMatch(ID01);
    expect(b.iag_person_id).toBe(a.iag_person_id);
    expect(b.match_confidence).toBeGreaterThanOrEqual(0.999);
  });

  it('a ZIP without a street still counts: name + dob + ZIP is I; the row warns that only the ZIP is used', async () => {
    const res = await m.match({
      records: [{ first_name: `  ${p.first_name} `, last_name: p.last_name.toLowerCase(), dob: p.dobs, zip: p.zip5, city: 'Elsewhere' }],
    });
    const [r] = res.body.records;
    expect(r).toMatchObject({ match_level: 'I', match_type: 'name_dob', zip: p.zip5 });
    expect(r.warnings).toEqual([
      {
        field: 'address_1',
        code: 'address_1_missing',
        message: 'address fields were given without address_1; only the ZIP (without a ZIP, the city and state) is used for matching',
      },
    ]);
  });

  it('a dob a year off with the exact name and the ZIP is I name_partial_dob_zip; without the ZIP it is unmatched', async () => {
    const [y, md] = [Number(p.dobs.slice(0, 4)), p.dobs.slice(4)];
    const near = `${y + 1}${md}`;
    const res = await m.match({
      records: [
        { first_name: title(p.first_name), last_name: title(p.last_name), dob: near, zip: p.zip5 },
        { first_name: title(p.first_name), last_name: title(p.last_name), dob: near },
      ],
    });
    const [a, b] = res.body.records;
    expect(a).toMatchObject({ match_level: 'I', match_type: 'name_partial_dob_zip' });
    expect(a.match_confidence).toBeGreaterThanOrEqual(0.99);
    expect(a.match_confidence).toBeLessThan(0.999);
    expect(b).toMatchObject({ match_level: null, match_type: null });
    expect(res.body.match_count).toBe(1);
  });

  it('names given the wrong way round in capitals, at the home address, are I name_address', async () => {
    const res = await m.match({
      records: [{ first_name: p.last_name, last_name: p.first_name, address_1: p.address_1.toUpperCase(), zip: p.zip5 }],
    });
    expect(res.body.records[0]).toMatchObject({ match_level: 'I', match_type: 'name_address' });
    const again = await m.match({ records: [{ first_name: title(p.first_name), last_name: title(p.last_name), dob: p.dobs }] });
    expect(res.body.records[0].iag_person_id).toBe(again.body.records[0].iag_person_id);
  });

  it('a made-up street in a real ZIP, or a ZIP alone, is unmatched and not billed; a made-up number on a real street is S', async () => {
    const records = [
      { row_id: 'junk', first_name: 'Zorbel', last_name: 'Quinvaxtrum', address_1: '4417 Plokethdra Way', zip: street.zip5 },
      {
        row_id: 'far',
        first_name: 'Zorbel',
        last_name: 'Quinvaxtrum',
        address_1: `${Number(street.hi) + 5000} ${title(street.name)}`,
        zip: street.zip5,
      },
      { row_id: 'zip', first_name: 'Zorbel', last_name: 'Quinvaxtrum', zip: street.zip5 },
      {
        row_id: 'near',
        first_name: 'Zorbel',
        last_name: 'Quinvaxtrum',
        address_1: `${Number(street.hi) + 2} ${title(street.name)}`,
        zip: street.zip5,
      },
    ];
    const res = await m.match({ records, spatial_mode: 'residential' });
    expect(res.status).toBe(200);
    const [junk, far, zip, near] = res.body.records;
    for (const r of [junk, far, zip]) expect(r).toMatchObject({ match_level: null, match_type: null, match_confidence: null });
    expect(near).toMatchObject({ match_level: 'S', match_type: 'spatial_residential', match_confidence: 0.1 });
    expect(near.iag_person_id).toMatch(ID01);
    expect(res.body).toMatchObject({ match_count: 1, record_count: 4, amount_charged: 0.01 });
    // The anchor is a residence on that street in that ZIP.
    const unmatched = await m.match({ records: records.slice(0, 3) });
    expect(unmatched.body).toMatchObject({ match_count: 0, amount_charged: 0 });
  });
});
