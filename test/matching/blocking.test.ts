/**
 * Blocking keys and scoring of messy rows (issue #15), against fixed expected values: the key
 * strings a row blocks on (nickname variants, initials, swapped order, ZIP without street, street in
 * ZIP for the spatial level), the street-range rule, and the weight and level of a ZIP-only row.
 */
import { describe, expect, it } from 'vitest';
import { KIND, onStreet, rowKeySources, streetOfKey, STREET_RANGE_SLACK } from '../../src/identity/matcher/keys.ts';
import { ADDR, DOB, FIRST, LAST, scoreCandidate, type CandidateAttributes } from '../../src/identity/matcher/index.ts';
import { normalizeMatchInput, recordZips } from '../../src/identity/normalize/record.ts';

const keys = (rec: Record<string, unknown>) => rowKeySources(normalizeMatchInput(rec)).map((k) => [k.s, k.kind, k.unit]);

describe('blocking keys of messy rows', () => {
  it('a nickname, a surname and a dob with a ZIP but no street: name + ZIP, dob + name, dob + initials, full names (no strong key)', () => {
    expect(keys({ first_name: 'Bob', last_name: 'Smyth', dob: '1980-03-04', zip: '02134' })).toEqual([
      ['n:SMYTH|02134', KIND.nameZip, null],
      ['n:BOB|02134', KIND.nameZip, null],
      ['d:1980-03-04|BOB', KIND.dob, null],
      ['d:1980-03-04|SMYTH', KIND.dob, null],
      // dob + Soundex of the surname, and of the first name (a swap)
      ['dp:1980-03-04|S530', KIND.dobSoundex, null],
      ['dp:1980-03-04|B100', KIND.dobSoundex, null],
      // initials of BOB and of its canonical given names (BERT, BOBBY, ROBERT), then swapped
      ['di:1980-03-04|B|S', KIND.dobInitials, null],
      ['di:1980-03-04|R|S', KIND.dobInitials, null],
      ['di:1980-03-04|S|B', KIND.dobInitials, null],
      ['fl:BOB|SMYTH', KIND.fullName, null],
      ['fl:BERT|SMYTH', KIND.fullName, null],
      ['fl:BOBBY|SMYTH', KIND.fullName, null],
      ['fl:ROBERT|SMYTH', KIND.fullName, null],
      ['fl:SMYTH|BOB', KIND.fullName, null],
    ]);
  });

  it('a street address adds its street-in-ZIP key with the house number (spatial level only); a strong key means no full-name blocks', () => {
    expect(keys({ first_name: 'Zelda', last_name: 'Quist', address_1: '12B Elm Street', zip: '2134' })).toEqual([
      ['a:12B|ELM|02134', KIND.address, null],
      ['st:ELM|02134', KIND.street, '12'],
      ['n:QUIST|02134', KIND.nameZip, null],
      ['n:ZELDA|02134', KIND.nameZip, null],
    ]);
    // a local part under EMAIL_LOCAL_MIN letters does not block alone; the domain + full name does
    expect(keys({ first_name: 'Zelda', last_name: 'Quist', email: 'zq@example.com' }).map(([, kind]) => kind)).toEqual([
      KIND.email,
      KIND.emailDomainName,
    ]);
  });

  it('an email blocks on its folded local part and on its domain + the full name, carrying the local part as unit', () => {
    const ks = keys({ first_name: 'Zelda', last_name: 'Quist', email: 'Z.Quist+news@googlemail.com' });
    expect(ks.filter(([, kind]) => kind !== KIND.email)).toEqual([
      ['el:zquist', KIND.emailLocal, null],
      ['ed:gmail.com|ZELDA|QUIST', KIND.emailDomainName, 'zquist'],
    ]);
    // two emails at one domain: one domain + name key each, told apart by their units
    expect(
      keys({ first_name: 'Zelda', last_name: 'Quist', emails: ['zelda@x.org', 'quist@x.org'] }).filter(
        ([, kind]) => kind === KIND.emailDomainName,
      ),
    ).toEqual([
      ['ed:x.org|ZELDA|QUIST', KIND.emailDomainName, 'zelda'],
      ['ed:x.org|ZELDA|QUIST', KIND.emailDomainName, 'quist'],
    ]);
    // without a full name there is no domain + name key
    expect(keys({ last_name: 'Quist', email: 'zelda@x.org' }).map(([, kind]) => kind)).toEqual([KIND.email, KIND.emailLocal]);
  });

  it("the ZIP of a row without address_1 is its locality, after the addresses' ZIPs", () => {
    expect(recordZips(normalizeMatchInput({ zip: '2134-0001', city: 'Boston' }))).toEqual(['02134']);
    expect(
      recordZips(normalizeMatchInput({ address_1: '1 Main St', zip: '10001', addresses: [{ address_1: '2 Elm St', zip: '02134' }] })),
    ).toEqual(['10001', '02134']);
    expect(normalizeMatchInput({ zip: 'ABCDE' }).localityZip5).toBeNull();
  });
});

describe('street in ZIP (spatial level)', () => {
  it('reads the street and house number of an address key; PO boxes and city/state localities have none', () => {
    expect(streetOfKey('123A|MAIN|02134')).toEqual({ street: 'st:MAIN|02134', house: 123 });
    expect(streetOfKey('12-14|ELM|10001')).toEqual({ street: 'st:ELM|10001', house: 12 });
    expect(streetOfKey('POBOX|12|02134')).toBeNull();
    expect(streetOfKey('12|ELM|BOSTON,MA')).toBeNull();
  });

  it('a house number is on a street within its numbered range widened by the slack', () => {
    expect(STREET_RANGE_SLACK).toBe(100);
    expect(onStreet('150', '100-200')).toBe(true);
    expect(onStreet('300', '100-200')).toBe(true);
    expect(onStreet('301', '100-200')).toBe(false);
    expect(onStreet('0', '100-200')).toBe(true);
    expect(onStreet(null, '100-200')).toBe(false);
  });
});

describe('scoring a ZIP-only row', () => {
  const person: CandidateAttributes = {
    personKey: 1n,
    householdKey: 10n,
    firstName: 'ROBERT',
    lastName: 'JOHNSON',
    nickname: null,
    dob: '1980-03-04',
    zip5: '02134',
    emailHashes: [],
    phoneHashes: [],
    addresses: [{ key: '123|MAIN|02134', unit: '4', isCurrent: true }],
  };

  it('name + dob with a day typo + the same ZIP: weight 11.5, p 0.9923, I as name_partial_dob_zip', () => {
    const s = scoreCandidate(normalizeMatchInput({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-05', zip: '02134' }), person);
    expect(s.features).toEqual({
      email: 0,
      phone: 0,
      first: FIRST.exact,
      last: LAST.exact,
      swapped: false,
      dob: DOB.digit,
      address: ADDR.zip,
    });
    expect(s.weight).toBe(11.5);
    expect(s.probability.toFixed(6)).toBe('0.992251');
    expect(s.individualType).toBe('name_partial_dob_zip');
  });

  it('name + exact dob + another ZIP: the ZIP disagrees (weight 16), still name_dob', () => {
    const s = scoreCandidate(normalizeMatchInput({ first_name: 'Bob', last_name: 'Jonhson', dob: '1980-03-04', zip: '10001' }), person);
    expect(s.features).toMatchObject({ first: FIRST.nickname, last: LAST.fuzzy, dob: DOB.exact, address: ADDR.disagree });
    expect(s.weight).toBe(4.0 + 3.0 + 9.0 - 1.0);
    expect(s.individualType).toBe('name_dob');
  });
});

describe('name + partial dob + ZIP', () => {
  const person: CandidateAttributes = {
    personKey: 1n,
    householdKey: 10n,
    firstName: 'ROBERT',
    lastName: 'JOHNSON',
    nickname: null,
    dob: '1980-03-04',
    zip5: '02134',
    emailHashes: [],
    phoneHashes: [],
    addresses: [],
  };
  const typeOf = (rec: Record<string, unknown>) => scoreCandidate(normalizeMatchInput(rec), person).individualType;

  it('is I (name_partial_dob_zip) with the exact full name only; a nickname, another ZIP or no ZIP is not', () => {
    expect(typeOf({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-04-03', zip: '02134' })).toBe('name_partial_dob_zip');
    expect(typeOf({ first_name: 'Robert', last_name: 'Johnson', dob: '1981-03-04', zip: '02134' })).toBe('name_partial_dob_zip');
    expect(typeOf({ first_name: 'Bob', last_name: 'Johnson', dob: '1980-03-05', zip: '02134' })).toBeNull(); // weight 11, p 0.9796
    expect(typeOf({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-05', zip: '10001' })).toBeNull();
    expect(typeOf({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-05' })).toBeNull();
    expect(
      typeOf({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-05', zip: '02134', email: 'someone.else@example.com' }),
    ).toBeNull();
  });
});
