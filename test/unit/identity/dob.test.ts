import { describe, expect, it } from 'vitest';
import { parseDob } from '../../../src/identity/normalize/dob.ts';

const today = new Date('2025-06-15T12:00:00Z');

describe('parseDob', () => {
  it.each([
    ['1980-03-04', '1980-03-04'],
    ['1980-3-4', '1980-03-04'],
    ['1980/03/04', '1980-03-04'],
    ['1980-03-04T00:00:00Z', '1980-03-04'],
    ['1980-03-04 00:00:00', '1980-03-04'],
    ['03/04/1980', '1980-03-04'], // US month/day
    ['3/4/1980', '1980-03-04'],
    ['03-04-1980', '1980-03-04'],
    ['03.04.1980', '1980-03-04'],
    ['25/12/1980', '1980-12-25'], // first number cannot be a month
    ['3/4/80', '1980-03-04'],
    ['01/02/05', '2005-01-02'], // pivot: 05 <= 25 -> 2005
    ['01/02/25', '2025-01-02'],
    ['01/02/26', '1926-01-02'],
    ['19800304', '1980-03-04'],
    ['03041980', '1980-03-04'],
    ['4 March 1980', '1980-03-04'],
    ['4 Mar 1980', '1980-03-04'],
    ['04-Mar-1980', '1980-03-04'],
    ['4th March 1980', '1980-03-04'],
    ['March 4, 1980', '1980-03-04'],
    ['march 4th, 1980', '1980-03-04'],
    ['Mar. 4, 1980', '1980-03-04'],
    ['Sept 9 1975', '1975-09-09'],
    ['1980 Mar 4', '1980-03-04'],
    ['  1980-03-04  ', '1980-03-04'],
    ['2000-02-29', '2000-02-29'], // leap year
  ])('%j -> %s', (raw, iso) => {
    expect(parseDob(raw, today).value?.iso).toBe(iso);
  });

  it('returns year, month and day', () => {
    expect(parseDob('March 4, 1980', today)).toEqual({ value: { iso: '1980-03-04', year: 1980, month: 3, day: 4 } });
  });

  it.each([
    ['', 'empty'],
    ['unknown', 'dob_unparseable'],
    ['1980', 'dob_unparseable'],
    ['March 1980', 'dob_unparseable'],
    ['02/30/1980', 'dob_invalid'],
    ['1900-02-29', 'dob_invalid'], // not a leap year
    ['13/13/1980', 'dob_invalid'],
    ['1980-00-10', 'dob_invalid'],
    ['2030-01-01', 'dob_future'],
    ['2025-06-16', 'dob_future'],
    ['1850-01-01', 'dob_too_old'],
    ['1905-06-14', 'dob_too_old'],
  ])('%j is rejected with %s', (raw, code) => {
    expect(parseDob(raw, today)).toMatchObject({ value: null, warning: { code } });
  });

  it('accepts today and exactly 120 years ago', () => {
    expect(parseDob('2025-06-15', today).value?.iso).toBe('2025-06-15');
    expect(parseDob('1905-06-15', today).value?.iso).toBe('1905-06-15');
  });
});
