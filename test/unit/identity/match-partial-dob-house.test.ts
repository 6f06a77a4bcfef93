/**
 * Partial dobs ("03/1985", "1985": normalize/dob.ts parsePartialDob, the dob levels `month` and `year`) and the
 * `house` address level (keys.ts houseZipOf, compare.ts), with the SQL twins on fixed values. Issue #15.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { compareDob, compareRecord, dobPartSql } from '../../../src/identity/matcher/compare.ts';
import { houseZipOf, rowHouseZips } from '../../../src/identity/matcher/keys.ts';
import { individualType } from '../../../src/identity/matcher/levels.ts';
import { WEIGHTS } from '../../../src/identity/matcher/model.ts';
import { appendNewLevels } from '../../../src/identity/matcher/params.ts';
import { ADDR, DOB, FIRST, ID, LAST, type CandidateAttributes, type Features } from '../../../src/identity/matcher/types.ts';
import { parsePartialDob } from '../../../src/identity/normalize/dob.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/record.ts';

const today = new Date('2026-06-15T00:00:00Z');

describe('partial dobs', () => {
  it('parsePartialDob reads year + month or a year alone, in the forms CRM exports use', () => {
    const cases: [string, string | null][] = [
      ['1985-03', '1985-03'],
      ['1985/3', '1985-03'],
      ['03/1985', '1985-03'],
      ['3-1985', '1985-03'],
      ['3.1985', '1985-03'],
      ['Mar 1985', '1985-03'],
      ['March, 1985', '1985-03'],
      ['sept 1985', '1985-09'],
      ['1985', '1985'],
      [' 1985 ', '1985'],
      ['13/1985', null],
      ['00/1985', null],
      ['2027', null],
      ['2026-07', null],
      ['2026-06', '2026-06'],
      ['1899', null],
      ['Foo 1985', null],
      ['85', null],
      ['03/85', null],
      ['1985-03-04', null],
    ];
    for (const [raw, want] of cases) expect(parsePartialDob(raw, today), raw).toBe(want);
  });

  it('a record keeps a partial dob beside no whole dob, with a warning; a whole or unreadable dob is as before', () => {
    const r = normalizeMatchInput({ first_name: 'Ann', dob: '03/1985' }, { today });
    expect([r.dob, r.dobPartial]).toEqual([null, '1985-03']);
    expect(r.warnings).toEqual([
      { field: 'dob', code: 'dob_partial', message: 'dob "03/1985" has no day; it is compared by year and month only' },
    ]);
    expect(normalizeMatchInput({ dob: '1985' }, { today }).warnings[0]!.message).toBe(
      'dob "1985" has no month or day; it is compared by year only',
    );
    const whole = normalizeMatchInput({ dob: '03/04/1985' }, { today });
    expect([whole.dob?.iso, whole.dobPartial, whole.warnings]).toEqual(['1985-03-04', null, []]);
    const bad = normalizeMatchInput({ dob: 'soon' }, { today });
    expect([bad.dob, bad.dobPartial, bad.warnings.map((w) => w.code)]).toEqual([null, null, ['dob_unparseable']]);
    expect(normalizeMatchInput({ dob: '02/30/1985' }, { today }).warnings.map((w) => w.code)).toEqual(['dob_invalid']);
  });

  const graph = '1985-03-04';
  const cases: [string, number][] = [
    ['1985-03', DOB.month],
    ['1985-04', DOB.disagree],
    ['1984-03', DOB.disagree],
    ['1985', DOB.year],
    ['1986', DOB.disagree],
  ];
  it('compareDob and its SQL twin: month and year agree by what the row gives, anything else disagrees', async () => {
    for (const [input, level] of cases) expect(compareDob(input, graph), input).toBe(level);
    expect(compareDob('1985-03', null)).toBe(DOB.missing);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const values = [...cases, ['1985-03', null] as const]
      .map(([i], n) => `(${n}, '${i}', ${n === cases.length ? 'NULL' : `DATE '${graph}'`})`)
      .join(', ');
    const rows = (
      await conn.runAndReadAll(`SELECT ${dobPartSql('i', 'g')} AS l FROM (VALUES ${values}) t(n, i, g) ORDER BY n`)
    ).getRowObjectsJS();
    expect(rows.map((r) => Number(r.l))).toEqual([...cases.map(([, l]) => l), DOB.missing]);
    conn.closeSync();
    inst.closeSync();
  });

  it('a month-precision dob is near for the exact name + ZIP rule; a year alone never is; older params take the new priors', () => {
    const f = (dob: number): Features => ({
      email: 0,
      phone: 0,
      first: FIRST.exact,
      last: LAST.exact,
      swapped: false,
      dob,
      address: ADDR.zip,
    });
    expect(individualType({ features: f(DOB.month), probability: 0.995 })).toBe('name_partial_dob_zip');
    expect(individualType({ features: f(DOB.year), probability: 0.995 })).toBeNull();
    expect(WEIGHTS.dob).toEqual([0, 9, 3, 3, 3, -4, 5, 2]);
    expect(appendNewLevels({ ...WEIGHTS, dob: [0, 14, 6, 10, -1.4, -12] }).dob).toEqual([0, 14, 6, 10, -1.4, -12, 5, 2]);
  });
});

describe('house level', () => {
  it('houseZipOf: "<zip5>:<leading house number>" of a ZIP-keyed street key only', () => {
    expect(houseZipOf('123A|MAIN|02134')).toBe('02134:123');
    expect(houseZipOf('12-14|MAIN|02134')).toBe('02134:12');
    expect(houseZipOf('POBOX|12|02134')).toBeNull();
    expect(houseZipOf('123|MAIN|BOSTON,MA')).toBeNull();
    expect(houseZipOf('ONE|MAIN|02134')).toBeNull();
    const r = normalizeMatchInput({ address_1: '12 Main St', zip: '02134', addresses: [{ address_1: '7 Elm St', zip: '02135' }] });
    expect(rowHouseZips(r)).toEqual(['02134:12', '02135:7']);
  });

  it('compareRecord: the house number and ZIP of the current address with another street is house; a street agreement wins', () => {
    const row = normalizeMatchInput({ first_name: 'Ann', last_name: 'Lee', address_1: '12 Mian St', zip: '02134' });
    const cand = (addresses: CandidateAttributes['addresses']): CandidateAttributes => ({
      personKey: 1n,
      householdKey: 1n,
      firstName: 'ANN',
      lastName: 'LEE',
      dob: null,
      zip5: '02134',
      emailHashes: [],
      phoneHashes: [],
      addresses,
    });
    expect(compareRecord(row, cand([{ key: '12|MAIN|02134', unit: null, isCurrent: true }])).address).toBe(ADDR.house);
    expect(compareRecord(row, cand([{ key: '14|MAIN|02134', unit: null, isCurrent: true }])).address).toBe(ADDR.zip);
    expect(compareRecord(row, cand([{ key: '12|MAIN|02134', unit: null, isCurrent: false }])).address).toBe(ADDR.zip);
    expect(compareRecord(row, cand([{ key: '12|MIAN|02134', unit: null, isCurrent: true }])).address).toBe(ADDR.unit); // same street, same (no) unit
    // the house is the address for I beside the full name only
    const f = (first: number): Features => ({
      email: ID.missing,
      phone: ID.missing,
      first,
      last: LAST.exact,
      swapped: false,
      dob: DOB.missing,
      address: ADDR.house,
    });
    expect(individualType({ features: f(FIRST.exact), probability: 0.9995 })).toBe('name_address');
    expect(individualType({ features: f(FIRST.initial), probability: 0.9995 })).toBeNull();
  });
});
