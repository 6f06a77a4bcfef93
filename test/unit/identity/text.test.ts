import { describe, expect, it } from 'vitest';
import { foldToAsciiUpper } from '../../../src/identity/normalize/index.ts';

/** The general Unicode path, written out independently: the ASCII shortcut must agree with it. */
const oracle = (raw: string) =>
  raw
    .normalize('NFKC')
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/[\u2018\u2019\u201B\u2032\u02BC`´]/g, "'")
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();

describe('foldToAsciiUpper', () => {
  it.each([
    ['  mary   ann ', 'MARY ANN'],
    ['o`brien', "O'BRIEN"],
    ['José', 'JOSE'],
    ['Ｊｏｈｎ', 'JOHN'],
    ['straße', 'STRASSE'],
    ['a\tb', 'A B'],
    ['', ''],
    ['smith–jones', 'SMITH-JONES'],
  ])('%j -> %j', (input, expected) => expect(foldToAsciiUpper(input)).toBe(expected));

  it('takes the ASCII shortcut with the same result as the Unicode path', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const s = Array.from({ length: Math.floor(rand() * 12) }, () => String.fromCharCode(0x20 + Math.floor(rand() * 95))).join('');
      expect(foldToAsciiUpper(s), JSON.stringify(s)).toBe(oracle(s));
    }
  });
});
