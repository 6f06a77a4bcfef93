import { describe, expect, it } from 'vitest';
import { addressKey, normalizeAddress } from '../../src/identity/normalize/index.ts';
import { normalizeMatchInput } from '../../src/identity/normalize/record.ts';
import { emailSha256 } from '../../src/identity/normalize/email.ts';
import { phoneSha256 } from '../../src/identity/normalize/phone.ts';
import {
  jaroWinkler,
  scoreCandidate,
  decideRow,
  I_THRESHOLD,
  ADDR,
  DOB,
  FIRST,
  ID,
  LAST,
  type CandidateAttributes,
  type ScoredCandidate,
} from '../../src/identity/matcher/index.ts';

const home = { address_1: '123 N Main St', address_2: 'Apt 4', city: 'Boston', state: 'MA', zip: '02134' };
const key = (a: typeof home) => addressKey(normalizeAddress(a).value!)!;

function person(over: Partial<CandidateAttributes> = {}): CandidateAttributes {
  const k = key(home);
  return {
    personKey: 1n,
    householdKey: 10n,
    firstName: 'ROBERT',
    lastName: 'JOHNSON',
    nickname: null,
    dob: '1980-03-04',
    zip5: '02134',
    emailHashes: [emailSha256('robert.johnson@gmail.com'), emailSha256('robertjohnson@gmail.com')],
    phoneHashes: [phoneSha256('+16175550123')],
    addresses: [
      { key: k.key, unit: k.unit, isCurrent: true },
      { key: '77|ELM|10001', unit: null, isCurrent: false },
    ],
    ...over,
  };
}
const score = (rec: Record<string, unknown>, p = person()) => scoreCandidate(normalizeMatchInput(rec), p);

describe('scoreCandidate', () => {
  it('exact name + address is an individual match', () => {
    const s = score({ first_name: 'Robert', last_name: 'Johnson', ...home });
    expect(s.features).toMatchObject({ first: FIRST.exact, last: LAST.exact, address: ADDR.unit });
    expect(s.probability).toBeGreaterThanOrEqual(I_THRESHOLD);
    expect(s.individualType).toBe('name_address');
  });

  it('nickname-equivalent first name counts as agreement', () => {
    const s = score({ first_name: 'Bob', last_name: 'Johnson', ...home });
    expect(s.features.first).toBe(FIRST.nickname);
    expect(s.individualType).toBe('name_address');
  });

  it('a typo in the surname is a fuzzy agreement, a different name is not', () => {
    expect(score({ first_name: 'Robert', last_name: 'Jonhson', ...home }).features.last).toBe(LAST.fuzzy);
    const other = score({ first_name: 'Robert', last_name: 'Williams', ...home });
    expect(other.features.last).toBe(LAST.disagree);
    expect(other.individualType).toBeNull();
  });

  it('swapped first and last names are recognised (with a small penalty)', () => {
    const s = score({ first_name: 'Johnson', last_name: 'Robert', ...home });
    expect(s.features).toMatchObject({ swapped: true, first: FIRST.exact, last: LAST.exact });
    expect(s.weight).toBeLessThan(score({ first_name: 'Robert', last_name: 'Johnson', ...home }).weight);
  });

  it('a common name alone (name + ZIP) is never an individual match', () => {
    const s = score({ first_name: 'Robert', last_name: 'Johnson', address_1: '999 Other Rd', zip: '02134' });
    expect(s.features.address).toBe(ADDR.zip);
    expect(s.individualType).toBeNull();
    const d = decideRow([{ ...s, personKey: 1n, householdKey: 10n, hhRef: 1n }], new Set(['I', 'H', 'D', 'A']), 'residential', null);
    expect(d).toBeNull();
  });

  it('gmail dots/case and phone formats agree with the stored hashes', () => {
    const s = score({ email: 'Robert.Johnson+news@GMAIL.com', phone: '(617) 555-0123', first_name: 'Robert', last_name: 'Johnson' });
    expect(s.features).toMatchObject({ email: ID.agree, phone: ID.agree });
    expect(s.individualType).toBe('email+name');
  });

  it('email alone is digital, not individual', () => {
    const s = score({ email: 'robert.johnson@gmail.com' });
    expect(s.features.email).toBe(ID.agree);
    expect(s.individualType).toBeNull();
    const d = decideRow([{ ...s, personKey: 1n, householdKey: 10n, hhRef: 1n }], new Set(['I', 'H', 'D', 'A', 'S']), 'residential', null);
    expect(d).toMatchObject({ level: 'D', type: 'email', personKey: 1n });
  });

  it('dob levels: exact, one digit off, transposed day/month, same year and month, different', () => {
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-04' }).features.dob).toBe(DOB.exact);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-07' }).features.dob).toBe(DOB.digit);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-04-03' }).features.dob).toBe(DOB.swap);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-27' }).features.dob).toBe(DOB.yearMonth);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1975-01-01' }).features.dob).toBe(DOB.disagree);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', dob: '1980-03-04' }).individualType).toBe('name_dob');
  });

  it('an old address matches at history level', () => {
    const s = score({ first_name: 'Robert', last_name: 'Johnson', address_1: '77 Elm Street', zip: '10001' });
    expect(s.features.address).toBe(ADDR.history);
    expect(s.weight).toBeLessThan(score({ first_name: 'Robert', last_name: 'Johnson', ...home }).weight);
  });

  it('a different unit at the same building agrees on street only', () => {
    expect(score({ first_name: 'Robert', last_name: 'Johnson', ...home, address_2: '#9' }).features.address).toBe(ADDR.street);
    expect(score({ first_name: 'Robert', last_name: 'Johnson', ...home, address_2: 'Unit 4' }).features.address).toBe(ADDR.unit);
  });

  it('surname at the address without a matching first name is a household', () => {
    const s = score({ first_name: 'Mary', last_name: 'Johnson', ...home });
    expect(s.individualType).toBeNull();
    const c: ScoredCandidate = { ...s, personKey: 1n, householdKey: 10n, hhRef: 1n };
    expect(decideRow([c], new Set(['I', 'H', 'D', 'A', 'S']), 'residential', null)).toMatchObject({
      level: 'H',
      type: 'household',
      householdKey: 10n,
    });
    expect(decideRow([c], new Set(['A']), 'residential', null)).toMatchObject({ level: 'A', type: 'address' });
  });

  it('ambiguous individuals in one household fall back to H; levels restrict the answer', () => {
    const s = score({ first_name: 'Robert', last_name: 'Johnson', ...home });
    const a: ScoredCandidate = { ...s, personKey: 1n, householdKey: 10n, hhRef: 1n };
    const b: ScoredCandidate = { ...s, personKey: 2n, householdKey: 10n, hhRef: 1n };
    expect(decideRow([a, b], new Set(['I', 'H']), 'residential', null)).toMatchObject({ level: 'H', personKey: 1n });
    expect(decideRow([a], new Set(['H']), 'residential', null)).toMatchObject({ level: 'H', householdKey: 10n });
    expect(decideRow([a], new Set(['S']), 'work', { resPerson: 5n, resHousehold: 50n, workPerson: 6n, workHousehold: 60n })).toMatchObject({
      level: 'S',
      type: 'spatial_work',
      personKey: 6n,
    });
    expect(decideRow([a], new Set(['D']), 'residential', null)).toBeNull();
  });

  it("namesakes born the same day are told apart by the row's ZIP, never by a ZIP the graph lacks (issue #31)", () => {
    const row = { first_name: 'Robert', last_name: 'Johnson', dob: '03/04/1980', zip: '02134' };
    const scored = (p: CandidateAttributes, personKey: bigint, householdKey: bigint): ScoredCandidate => ({
      ...score(row, p),
      personKey,
      householdKey,
      hhRef: householdKey,
    });
    const here = scored(person({ addresses: [] }), 1n, 10n);
    const elsewhere = scored(person({ zip5: '10001', addresses: [] }), 2n, 20n);
    const nowhere = scored(person({ zip5: null, addresses: [] }), 3n, 30n);
    expect([here.features.address, elsewhere.features.address, nowhere.features.address]).toEqual([ADDR.zip, ADDR.disagree, ADDR.missing]);
    // Within the ambiguity margin by weight, but the ZIP is the only difference: the person of the row's ZIP.
    expect(decideRow([here, elsewhere], new Set(['I']), 'residential', null)).toMatchObject({
      level: 'I',
      type: 'name_dob',
      personKey: 1n,
    });
    // A person whose ZIP the graph does not know may be the row's: still ambiguous.
    expect(decideRow([here, nowhere], new Set(['I']), 'residential', null)).toBeNull();
    // A row in a ZIP neither lives in tells them apart no more than the name and dob do.
    const away = { ...row, zip: '60601' };
    const a = { ...score(away, person({ addresses: [] })), personKey: 1n, householdKey: 10n, hhRef: 10n };
    const b = { ...score(away, person({ zip5: '10001', addresses: [] })), personKey: 2n, householdKey: 20n, hhRef: 20n };
    expect(decideRow([a, b], new Set(['I']), 'residential', null)).toBeNull();
    // A namesake whose evidence differs otherwise (a nickname against the exact name) is still a rival.
    const nick = scored(person({ firstName: 'BOB', zip5: '10001', addresses: [] }), 4n, 40n);
    expect(nick.features.first).toBe(FIRST.nickname);
    expect(decideRow([here, { ...nick, weight: here.weight - 1 }], new Set(['I']), 'residential', null)).toBeNull();
  });

  it('jaroWinkler matches known values', () => {
    expect(jaroWinkler('MARTHA', 'MARHTA')).toBeCloseTo(0.9611, 4);
    expect(jaroWinkler('DWAYNE', 'DUANE')).toBeCloseTo(0.84, 2);
    // DuckDB halves the transposition count in integer arithmetic (3 -> 1): 0.9022, not 0.8756.
    expect(jaroWinkler('DUCAN', 'DUNCAN')).toBeCloseTo(0.9022, 4);
    expect(jaroWinkler('ABC', 'ABC')).toBe(1);
  });
});
