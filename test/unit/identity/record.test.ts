import { describe, expect, it } from 'vitest';
import { emailSha256 } from '../../../src/identity/normalize/email.ts';
import { phoneSha256 } from '../../../src/identity/normalize/phone.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/record.ts';

const today = new Date('2025-06-15T00:00:00Z');
const H = 'a'.repeat(64);

describe('normalizeMatchInput', () => {
  it('normalizes a full messy record', () => {
    const r = normalizeMatchInput(
      {
        row_id: 'r-1',
        email: ' J.Doe+news@GoogleMail.com ',
        emails: ['jdoe@gmail.com', 'bad@@x', 'Other@Example.com'],
        email_sha256: H.toUpperCase(),
        phone: '(415) 555-2671 x3',
        phones: ['415.555.2671', '123'],
        full_name: 'Dr. Robert Q. Public Jr.',
        address_1: '123 North Main Street Apt 4',
        city: 'allston',
        state: 'Mass',
        zip: '2134',
        addresses: [{ address_1: '123 N Main St', address_2: '#4', zip_code: '02134' }, { city: 'x' }],
        dob: 'March 4, 1980',
        iag_person_id: ' ACME_01_XYZ ',
      },
      { today },
    );
    expect(r.rowId).toBe('r-1');
    expect(r.emails.map((e) => e.normalized)).toEqual(['j.doe+news@googlemail.com', 'jdoe@gmail.com', 'other@example.com']);
    expect(r.emailHashes).toEqual([
      emailSha256('j.doe+news@googlemail.com'),
      emailSha256('jdoe@gmail.com'),
      emailSha256('other@example.com'),
      H,
    ]);
    expect(r.phones.map((p) => p.e164)).toEqual(['+14155552671']);
    expect(r.phoneHashes).toEqual([phoneSha256('+14155552671')]);
    expect(r.name).toEqual({ first: 'ROBERT', middle: 'Q', last: 'PUBLIC', suffix: 'JR' });
    expect(r.nameSource).toBe('full_name');
    expect(r.firstNameCanonicals).toContain('ROBERT');
    expect(r.addresses).toHaveLength(1); // the entry duplicates the top-level address
    expect(r.addresses[0]).toMatchObject({ line1: '123 N MAIN ST', line2: 'APT 4', state: 'MA', zip5: '02134' });
    expect(r.addressKeys[0]).toEqual({ key: '123|MAIN|02134', unit: '4' });
    expect(r.dob?.iso).toBe('1980-03-04');
    expect(r.iagPersonId).toBe('ACME_01_XYZ');
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([
      ['emails[1]', 'email_malformed'],
      ['phones[1]', 'phone_impossible'],
      ['addresses[1].address_1', 'address_1_missing'],
      ['zip', 'zip_leading_zero_restored'],
    ]);
  });

  it('prefers separate name fields and only fills gaps from full_name', () => {
    const fields = normalizeMatchInput({ first_name: ' Bob ', last_name: "O'Neil", full_name: 'Someone Else' });
    expect(fields.name).toEqual({ first: 'BOB', middle: null, last: 'ONEIL', suffix: null });
    expect(fields.nameSource).toBe('fields');
    expect(fields.firstNameCanonicals).toEqual(expect.arrayContaining(['BOB', 'ROBERT']));
    const mixed = normalizeMatchInput({ first_name: 'Peggy', full_name: 'Margaret A. Smith', name_suffix: 'jr.' });
    expect(mixed.name).toEqual({ first: 'PEGGY', middle: 'A', last: 'SMITH', suffix: 'JR' });
    expect(mixed.nameSource).toBe('mixed');
  });

  it('moves a trailing initial of first_name to the middle name; two given names stay', () => {
    const r = normalizeMatchInput({ first_name: 'Bob A.', last_name: 'Smith' });
    expect(r.name).toEqual({ first: 'BOB', middle: 'A', last: 'SMITH', suffix: null });
    expect(r.firstNameCanonicals).toEqual(expect.arrayContaining(['BOB', 'ROBERT']));
    expect(normalizeMatchInput({ first_name: 'Anne-Marie T', middle_name: 'Claire' }).name).toMatchObject({
      first: 'ANNE MARIE',
      middle: 'CLAIRE',
    });
    expect(normalizeMatchInput({ first_name: 'Mary Ann' }).name.first).toBe('MARY ANN');
    expect(normalizeMatchInput({ first_name: 'J R' }).name).toMatchObject({ first: 'J R', middle: null });
  });

  it('never throws, and reports every bad value', () => {
    const r = normalizeMatchInput(
      {
        email: 'nope',
        phone: 12,
        email_sha256: 'abc',
        phone_sha256: 'z'.repeat(64),
        emails: 42,
        phones: [null, { x: 1 }],
        full_name: '...',
        state: 'ZZ',
        address_1: '5 Oak Ave',
        dob: '02/30/1980',
        addresses: 'oops',
      },
      { today },
    );
    expect(r.emails).toEqual([]);
    expect(r.phones).toEqual([]);
    expect(r.emailHashes).toEqual([]);
    expect(r.addresses).toHaveLength(1);
    expect(r.addresses[0]?.state).toBeNull();
    expect(r.dob).toBeNull();
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([
      ['emails', 'invalid_type'],
      ['email', 'email_malformed'],
      ['email_sha256', 'hash_wrong_length'],
      ['phones[1]', 'invalid_type'], // type problems are found while collecting, before values
      ['phone', 'phone_impossible'],
      ['phone_sha256', 'hash_malformed'],
      ['full_name', 'name_unparseable'],
      ['addresses', 'invalid_type'],
      ['state', 'state_unknown'],
      ['dob', 'dob_invalid'],
    ]);
    for (const w of r.warnings) expect(w.message).toEqual(expect.any(String));
  });

  it.each([[null], [undefined], ['a string'], [[1, 2]], [42]])('handles a non-object record %j', (input) => {
    const r = normalizeMatchInput(input, { position: 7 });
    expect(r.rowId).toBe('7');
    expect(r.warnings[0]?.code).toBe('invalid_type');
  });

  it('defaults row_id to the position and flags a blank one', () => {
    expect(normalizeMatchInput({}, { position: 3 }).rowId).toBe('3');
    expect(normalizeMatchInput({}).rowId).toBeNull();
    const blank = normalizeMatchInput({ row_id: '   ' }, { position: 2 });
    expect(blank.rowId).toBe('2');
    expect(blank.warnings[0]?.code).toBe('row_id_blank');
    expect(normalizeMatchInput({ row_id: 5 }).rowId).toBe('5');
  });

  it('treats empty strings as absent without warnings', () => {
    const r = normalizeMatchInput({ email: '', phone: '  ', dob: '', full_name: '', address_1: '', emails: [''] });
    expect(r.warnings).toEqual([]);
    expect(r.name).toEqual({ first: null, middle: null, last: null, suffix: null });
    expect(r.nameSource).toBeNull();
  });

  it('accepts a lone string where an array belongs and dedupes hashes', () => {
    const r = normalizeMatchInput({ emails_sha256: H, email_sha256: H, phones: '4155552671', phone: '+1 415 555 2671' });
    expect(r.emailSha256Inputs).toEqual([H]);
    expect(r.emailHashes).toEqual([H]);
    expect(r.phones).toHaveLength(1);
  });
});
