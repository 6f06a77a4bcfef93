import { describe, expect, it } from 'vitest';
import { normalizeState } from '../../../src/identity/normalize/state.ts';
import { normalizeZip } from '../../../src/identity/normalize/zip.ts';

describe('normalizeState', () => {
  it.each([
    ['MA', 'MA'],
    ['ma', 'MA'],
    [' ny ', 'NY'],
    ['N.Y.', 'NY'],
    ['n y', 'NY'],
    ['Massachusetts', 'MA'],
    ['NEW YORK', 'NY'],
    ['new   york', 'NY'],
    ['North Carolina', 'NC'],
    ['District of Columbia', 'DC'],
    ['Washington D.C.', 'DC'],
    ['D.C.', 'DC'],
    ['Puerto Rico', 'PR'],
    ['Guam', 'GU'],
    ['PR', 'PR'],
    ['AE', 'AE'],
    ['State of Texas', 'TX'],
    ['Calif.', 'CA'],
    ['Mass', 'MA'],
    ['Penna', 'PA'],
    ['W. Va.', 'WV'],
  ])('%j -> %s', (raw, want) => {
    expect(normalizeState(raw)).toEqual({ value: want });
  });

  it.each([['XX'], ['Narnia'], ['M'], ['12'], ['Ontario']])('%j is unknown', (raw) => {
    expect(normalizeState(raw)).toMatchObject({ value: null, warning: { code: 'state_unknown' } });
  });

  it('treats blank as empty', () => {
    expect(normalizeState('  ').warning?.code).toBe('empty');
  });
});

describe('normalizeZip', () => {
  it.each([
    ['02134', '02134', null],
    [' 02134 ', '02134', null],
    ['02134-1234', '02134', '1234'],
    ['02134 - 1234', '02134', '1234'],
    ['021341234', '02134', '1234'],
    ['02134-0000', '02134', null],
    ['90210.0', '90210', null],
    ['90210–1234', '90210', '1234'], // en dash
  ])('%j -> %s + %s', (raw, zip5, zip4) => {
    expect(normalizeZip(raw)).toEqual({ value: { zip5, zip4 } });
  });

  it.each([
    ['2134', '02134', null],
    ['2134-1234', '02134', '1234'],
    ['21341234', '02134', '1234'],
  ])('%j restores the leading zero', (raw, zip5, zip4) => {
    expect(normalizeZip(raw)).toMatchObject({ value: { zip5, zip4 }, warning: { code: 'zip_leading_zero_restored' } });
  });

  it.each([['123'], ['1234567'], ['ABCDE'], ['K1A 0B1'], ['00000'], ['12345-12']])('%j is malformed', (raw) => {
    expect(normalizeZip(raw)).toMatchObject({ value: null, warning: { code: 'zip_malformed' } });
  });
});
