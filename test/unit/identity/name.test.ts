import { describe, expect, it } from 'vitest';
import { normalizeNameSuffix, parseFullName } from '../../../src/identity/normalize/full-name.ts';
import { canonicalName } from '../../../src/identity/normalize/name.ts';

describe('canonicalName', () => {
  it('a name of ASCII letters alone is its upper case, as the full rules give it', () => {
    let seed = 3;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (let i = 0; i < 5000; i++) {
      const raw = Array.from({ length: 1 + rnd(10) }, () => 'AbcDEfghIJkLmnOPqrStUVwxYZ'[rnd(26)]).join('');
      // The trailing period sends the same name through the full rules (periods are dropped).
      expect(canonicalName(raw)).toBe(canonicalName(`${raw}.`));
      expect(canonicalName(raw)).toBe(raw.toUpperCase());
    }
  });

  it.each([
    ['  john  ', 'JOHN'],
    ['José', 'JOSE'],
    ['Jose\u0301', 'JOSE'], // decomposed accent
    ['Zoë', 'ZOE'],
    ['Łukasz', 'LUKASZ'],
    ['Søren', 'SOREN'],
    ['Straße', 'STRASSE'],
    ["O'Neil", 'ONEIL'],
    ['O\u2019Neil', 'ONEIL'], // curly apostrophe
    ["O' Brien", 'OBRIEN'],
    ['Smith-Jones', 'SMITH JONES'],
    ['Smith\u2013Jones', 'SMITH JONES'], // en dash
    ['St. John', 'ST JOHN'],
    ['mary   ann', 'MARY ANN'],
    ['ＪＯＨＮ', 'JOHN'], // full width
    ['Renée (Rene)', 'RENEE RENE'],
  ])('%j -> %s', (raw, want) => {
    expect(canonicalName(raw)).toBe(want);
  });

  it.each([[''], ['   '], ['123'], ['---'], [null], [undefined]])('%j -> null', (raw) => {
    expect(canonicalName(raw)).toBeNull();
  });
});

describe('parseFullName', () => {
  const n = (first: string | null, middle: string | null, last: string | null, suffix: string | null = null) => ({
    first,
    middle,
    last,
    suffix,
  });
  it.each([
    ['John Smith', n('JOHN', null, 'SMITH')],
    ['  john   q.  smith ', n('JOHN', 'Q', 'SMITH')],
    ['Smith, John', n('JOHN', null, 'SMITH')],
    ['Last, First M.', n('FIRST', 'M', 'LAST')],
    ['Public, John Q., Jr.', n('JOHN', 'Q', 'PUBLIC', 'JR')],
    ['Public Jr., John Q.', n('JOHN', 'Q', 'PUBLIC', 'JR')],
    ['Public, Dr. John', n('JOHN', null, 'PUBLIC')],
    ['Dr. John Q. Public Jr.', n('JOHN', 'Q', 'PUBLIC', 'JR')],
    ['MR JOHN PUBLIC', n('JOHN', null, 'PUBLIC')],
    ['Mrs. Jane Doe', n('JANE', null, 'DOE')],
    ['Ms Jane Doe', n('JANE', null, 'DOE')],
    ["MARY ANN O'NEIL", n('MARY', 'ANN', 'ONEIL')],
    ['Jean-Luc Picard III', n('JEAN LUC', null, 'PICARD', 'III')],
    ['John Smith II', n('JOHN', null, 'SMITH', 'II')],
    ['John Smith IV', n('JOHN', null, 'SMITH', 'IV')],
    ['John Smith V', n('JOHN', null, 'SMITH', 'V')],
    ['John Smith Sr', n('JOHN', null, 'SMITH', 'SR')],
    ['John Smith, Esq.', n('JOHN', null, 'SMITH', 'ESQ')],
    ['Jane Doe MD', n('JANE', null, 'DOE', 'MD')],
    ['Jane Doe, Ph.D.', n('JANE', null, 'DOE', 'PHD')],
    ['John Smith Jr., MD', n('JOHN', null, 'SMITH', 'JR')], // generational wins
    ['John Smith, Jr., MD', n('JOHN', null, 'SMITH', 'JR')],
    ['Ludwig van Beethoven', n('LUDWIG', null, 'VAN BEETHOVEN')],
    ['Ludwig van der Berg', n('LUDWIG', null, 'VAN DER BERG')],
    ['Maria de la Cruz', n('MARIA', null, 'DE LA CRUZ')],
    ['Juan Carlos del Rio', n('JUAN', 'CARLOS', 'DEL RIO')],
    ['John St. James', n('JOHN', null, 'ST JAMES')],
    ['Leonardo da Vinci', n('LEONARDO', null, 'DA VINCI')],
    ["Pat O' Brien", n('PAT', null, 'OBRIEN')],
    ['Pat O Brien', n('PAT', null, 'OBRIEN')],
    ["O'Brien, Pat", n('PAT', null, 'OBRIEN')],
    ['José Álvarez-García', n('JOSE', null, 'ALVAREZ GARCIA')],
    ['JOHN V', n('JOHN', null, 'V')], // too short for V to be a suffix
    ['Cher', n('CHER', null, null)],
    ['John Ronald Reuel Tolkien', n('JOHN', 'RONALD REUEL', 'TOLKIEN')],
    ['SMITH , JOHN', n('JOHN', null, 'SMITH')],
  ])('%j', (raw, want) => {
    const { prefix: _p, ...parts } = parseFullName(raw);
    expect(parts).toEqual(want);
  });

  it('reports the honorific prefix', () => {
    expect(parseFullName('Dr. John Q. Public Jr.').prefix).toBe('DR');
    expect(parseFullName('John Public').prefix).toBeNull();
  });

  it.each([[''], ['   '], [','], [null]])('empty input %j gives all nulls', (raw) => {
    expect(parseFullName(raw)).toEqual({ prefix: null, first: null, middle: null, last: null, suffix: null });
  });
});

describe('normalizeNameSuffix', () => {
  it.each([
    ['Jr.', 'JR'],
    ['jr', 'JR'],
    ['Junior', 'JR'],
    ['SR.', 'SR'],
    ['iii', 'III'],
    ['3rd', 'III'],
    ['2nd', 'II'],
    ['Esq.', 'ESQ'],
    ['M.D.', 'MD'],
    ['Ph.D.', 'PHD'],
    ['Jr., M.D.', 'JR'],
    ['xyz', null],
    ['', null],
  ])('%j -> %s', (raw, want) => {
    expect(normalizeNameSuffix(raw)).toBe(want);
  });
});
