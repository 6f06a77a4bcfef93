import { describe, expect, it } from 'vitest';
import { areNicknameEquivalent, canonicalGivenNames, nameVariants } from '../../../src/identity/normalize/nickname.ts';

describe('nicknames', () => {
  it.each([
    ['Bob', 'Robert'],
    ['Robert', 'Bob'],
    ['BOBBY', 'robert'],
    ['Bill', 'William'],
    ['William', 'Billy'],
    ['Peggy', 'Margaret'],
    ['Margaret', 'Peggy'],
    ['Peggy', 'Maggie'], // transitive through MARGARET
    ['Bob', 'Bill'], // both list ROBERT as a canonical name
    ['Liz', 'Elizabeth'],
    ['Beth', 'Liz'],
    ['Dick', 'Richard'],
    ['Jim', 'James'],
    ['Kate', 'Katherine'],
    ['  peggy ', 'MARGARET'],
    ['Zoë', 'Zoe'], // same name after folding
  ])('%s ~ %s', (a, b) => {
    expect(areNicknameEquivalent(a, b)).toBe(true);
  });

  it.each([
    ['John', 'Mary'],
    ['Robert', 'Margaret'],
    ['Peggy', 'William'],
    ['', ''],
    ['Xyzzy', 'Robert'],
  ])('%s !~ %s', (a, b) => {
    expect(areNicknameEquivalent(a, b)).toBe(false);
  });

  it('gives each name its canonical given names', () => {
    expect(canonicalGivenNames('Peggy')).toContain('MARGARET');
    expect(canonicalGivenNames('Peggy')).toContain('PEGGY');
    expect(canonicalGivenNames('Xyzzy')).toEqual(['XYZZY']);
    expect(canonicalGivenNames('')).toEqual([]);
  });

  it('lists variants in both directions', () => {
    const v = nameVariants('bob');
    expect(v).toEqual(expect.arrayContaining(['BOB', 'ROBERT', 'ROB', 'BOBBY']));
    expect(nameVariants('Robert')).toEqual(expect.arrayContaining(['BOB', 'BOBBY', 'ROB']));
  });

  it('folds names written with dots in the source file', () => {
    // nicknames.csv has entries such as "k.c."
    expect(canonicalGivenNames('K.C.').length).toBeGreaterThan(0);
  });
});
