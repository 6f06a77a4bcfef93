import { describe, expect, it } from 'vitest';
import { normalizePhone, phoneSha256 } from '../../../src/identity/normalize/phone.ts';

describe('normalizePhone', () => {
  it.each([
    ['(415) 555-2671', '+14155552671'],
    ['415.555.2671', '+14155552671'],
    ['415-555-2671', '+14155552671'],
    ['  415 555 2671  ', '+14155552671'],
    ['4155552671', '+14155552671'],
    ['14155552671', '+14155552671'],
    ['1 (415) 555-2671', '+14155552671'],
    ['+1 415 555 2671', '+14155552671'],
    ['+1-415-555-2671 ext. 123', '+14155552671'],
    ['415-555-2671 x34', '+14155552671'],
    ['415 555 2671 extension 9', '+14155552671'],
    ['tel:+14155552671', '+14155552671'],
    ['4155552671.0', '+14155552671'], // spreadsheet float
    ['1-800-FLOWERS', '+18003569377'],
    ['+44 20 7946 0958', '+442079460958'],
    ['011 44 20 7946 0958', '+442079460958'],
    ['0044 20 7946 0958', '+442079460958'],
    ['(555) 234-5678', '+15552345678'], // fictional but possible: not our job to reject
    ['４１５５５５２６７１', '+14155552671'], // full-width digits
  ])('%j -> %s', (raw, want) => {
    expect(normalizePhone(raw)).toEqual({ value: want });
  });

  it.each([
    ['', 'empty'],
    ['n/a', 'phone_malformed'],
    ['123', 'phone_impossible'],
    ['555-1234', 'phone_impossible'], // 7-digit local number, no area code
    ['415-555-267', 'phone_impossible'],
    ['(015) 123-4567', 'phone_impossible'], // NANP area code cannot start with 0
    ['(115) 123-4567', 'phone_impossible'],
    ['(415) 155-4567', 'phone_impossible'], // exchange cannot start with 1
    ['415555267112345', 'phone_impossible'],
  ])('%j is rejected with %s', (raw, code) => {
    const r = normalizePhone(raw);
    expect(r.value).toBeNull();
    expect(r.warning?.code).toBe(code);
  });

  it('honours another default country', () => {
    expect(normalizePhone('020 7946 0958', 'GB').value).toBe('+442079460958');
  });

  it('hashes the E.164 string with the plus sign', () => {
    expect(phoneSha256('+14155552671')).toMatch(/^[0-9a-f]{64}$/);
    expect(phoneSha256('+14155552671')).not.toBe(phoneSha256('14155552671'));
  });
});
