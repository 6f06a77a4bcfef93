/**
 * The one-typo email level (`near`) and the phonetic surname level with their blocks (issue #15,
 * docs/decisions/045): Soundex and its SQL twin, Levenshtein, the levels in the pure scorer, the level
 * rules, and params files written before the levels. Fixed inputs, values worked out by hand.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { compareFirst, compareLast, emailLocalNear, firstSql, lastSql, levenshtein } from '../../../src/identity/matcher/compare.ts';
import { soundex, SOUNDEX_SQL, soundexReference } from '../../../src/identity/matcher/keys.ts';
import { individualType } from '../../../src/identity/matcher/levels.ts';
import { matchWeight, probability, WEIGHTS } from '../../../src/identity/matcher/model.ts';
import { appendNewLevels } from '../../../src/identity/matcher/params.ts';
import { scoreCandidate } from '../../../src/identity/matcher/score.ts';
import { ADDR, DOB, EMAIL, FIRST, ID, LAST, type CandidateAttributes, type Features } from '../../../src/identity/matcher/types.ts';
import { emailSha256 } from '../../../src/identity/normalize/email.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/record.ts';

const f = (over: Partial<Features>): Features => ({ email: 0, phone: 0, first: 0, last: 0, swapped: false, dob: 0, address: 0, ...over });

// [name, American Soundex]: the classic examples (H/W transparent, vowels separate, first letter's code folded).
const SOUNDEX: [string, string | null][] = [
  ['ROBERT', 'R163'],
  ['RUPERT', 'R163'],
  ['RUBIN', 'R150'],
  ['ASHCRAFT', 'A261'],
  ['TYMCZAK', 'T522'],
  ['PFISTER', 'P236'],
  ['HONEYMAN', 'H555'],
  ['WASHINGTON', 'W252'],
  ['LEE', 'L000'],
  ['GUTIERREZ', 'G362'],
  ['JACKSON', 'J250'],
  ["O'BRIEN", 'O165'],
  ['SMITH', 'S530'],
  ['SCHMIDT', 'S530'],
  ['HAWKINS', 'H252'],
  ['VAN DER BERG', 'V536'],
  ['LLOYD', 'L300'],
  ['W', 'W000'],
  ['', null],
  ["'-", null],
];

describe('Soundex', () => {
  it('codes names as American Soundex', () => {
    for (const [name, code] of SOUNDEX) expect(soundex(name), name).toBe(code);
    expect(soundex(null)).toBeNull();
  });

  it('the one-pass coding of ASCII names equals the definition on 20,000 random strings', () => {
    let seed = 5;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const alphabet = "AEIOUYHWBFPVCGJKQSXZDTLMNRaehwbcs -'.1";
    let coded = 0;
    for (let i = 0; i < 20_000; i++) {
      const name = Array.from({ length: rnd(12) }, () => alphabet[rnd(alphabet.length)]).join('');
      expect(soundex(name), name).toBe(name ? soundexReference(name) : null);
      if (soundex(name)) coded++;
    }
    expect(coded).toBeGreaterThan(15_000);
    expect(soundex('ÉMILE')).toBe(soundexReference('ÉMILE')); // not ASCII: the definition itself
  });

  it('the SQL twin gives the same codes', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const values = SOUNDEX.map(([n], i) => `(${i}, '${n.replace(/'/g, "''")}')`).join(', ');
      const rows = (
        await conn.runAndReadAll(`SELECT ${SOUNDEX_SQL('n')} AS sx FROM (VALUES ${values}, (99, NULL)) t(i, n) ORDER BY i`)
      ).getRowObjectsJS();
      expect(rows.map((r) => r.sx)).toEqual([...SOUNDEX.map(([, c]) => c), null]);
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});

describe('surname levels', () => {
  it('exact, fuzzy (Jaro-Winkler >= 0.9), phonetic (same Soundex, not fuzzy), fuzzyLow (Jaro-Winkler 0.8-0.9), disagree', () => {
    expect(compareLast('SMITH', 'SMITH')).toBe(LAST.exact);
    expect(compareLast('KOHL', 'KOHN')).toBe(LAST.fuzzyLow); // JW 0.883, K400 / K500
    expect(compareLast('HART', 'HARE')).toBe(LAST.fuzzyLow);
    expect(compareLast('HART', 'HOLT')).toBe(LAST.disagree); // JW 0.70
    expect(compareLast('JONHSON', 'JOHNSON')).toBe(LAST.fuzzy);
    expect(compareLast('SMYTHE', 'SMITH')).toBe(LAST.phonetic); // JW 0.87, both S530
    expect(compareLast('SCHMIDT', 'SMITH')).toBe(LAST.phonetic);
    expect(compareLast('WILLIAMS', 'SMITH')).toBe(LAST.disagree);
    expect(compareLast('S', 'SMITH')).toBe(LAST.disagree); // an initial is no surname
    expect(compareLast(null, 'SMITH')).toBe(LAST.missing);
  });

  it('the SQL twin gives the same levels', async () => {
    const pairs: [string, string][] = [
      ['SMITH', 'SMITH'],
      ['JONHSON', 'JOHNSON'],
      ['SMYTHE', 'SMITH'],
      ['SCHMIDT', 'SMITH'],
      ['WILLIAMS', 'SMITH'],
      ['S', 'SMITH'],
      ['KOHL', 'KOHN'],
      ['HART', 'HARE'],
      ['HART', 'HOLT'],
      ['GARCIA', 'GARCES'],
      ['LI', 'LU'],
    ];
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const values = pairs.map(([i, g], n) => `(${n}, '${i}', '${g}')`).join(', ');
      const sql = `SELECT ${lastSql('i', 'g', SOUNDEX_SQL('i'), SOUNDEX_SQL('g'))} AS l FROM (VALUES ${values}) t(n, i, g) ORDER BY n`;
      const rows = (await conn.runAndReadAll(sql)).getRowObjectsJS();
      expect(rows.map((r) => Number(r.l))).toEqual(pairs.map(([i, g]) => compareLast(i, g)));
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});

describe('first-name Jaro-Winkler bands', () => {
  // [input, graph, level]: exact, nickname, >= 0.9, 0.8-0.9, initial, below 0.8
  const cases: [string, string, number][] = [
    ['MICHAEL', 'MICHAEL', FIRST.exact],
    ['MIKE', 'MICHAEL', FIRST.nickname],
    ['MICHEAL', 'MICHAEL', FIRST.fuzzy],
    ['MICHEAL', 'MIKAEL', FIRST.fuzzyLow],
    ['GEOFFREY', 'JEFFREY', FIRST.fuzzyLow],
    ['M', 'MICHAEL', FIRST.initial],
    ['MARY', 'MICHAEL', FIRST.disagree],
  ];

  it('bands 0.9 and 0.8 in JS and SQL alike', async () => {
    const { nameVariants } = await import('../../../src/identity/normalize/nickname.ts');
    expect(cases.map(([i, g]) => compareFirst(i, g, nameVariants(i)))).toEqual(cases.map(([, , l]) => l));
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const values = cases
        .map(
          ([i, g], n) =>
            `(${n}, '${i}', '${g}', [${nameVariants(i)
              .map((v) => `'${v}'`)
              .join(', ')}]::VARCHAR[])`,
        )
        .join(', ');
      const rows = (
        await conn.runAndReadAll(`SELECT ${firstSql('i', 'g', 'v', 'NULL')} AS l FROM (VALUES ${values}) t(n, i, g, v) ORDER BY n`)
      ).getRowObjectsJS();
      expect(rows.map((r) => Number(r.l))).toEqual(cases.map(([, , l]) => l));
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });

  it('a surname in the lower band is no name agreement either: beside an agreeing first name it needs two more groups', () => {
    const base = { first: FIRST.exact, last: LAST.fuzzyLow };
    expect(individualType({ features: f({ ...base, dob: DOB.exact }), probability: 1 })).toBeNull();
    expect(individualType({ features: f({ ...base, dob: DOB.exact, address: ADDR.unit }), probability: 1 })).toBe('name_address');
    // and no conflict: email + address without a name agreement is still I
    expect(
      individualType({ features: f({ first: FIRST.missing, last: LAST.fuzzyLow, email: ID.agree, address: ADDR.unit }), probability: 1 }),
    ).toBe('email+address');
    expect(individualType({ features: f({ last: LAST.disagree, email: ID.agree, address: ADDR.unit }), probability: 1 })).toBeNull();
  });

  it('the lower band is no name agreement: the surname then needs two more groups, like an initial', () => {
    const base = { first: FIRST.fuzzyLow, last: LAST.exact };
    expect(individualType({ features: f({ ...base, email: ID.agree, address: ADDR.unit }), probability: 1 })).toBe('email+name');
    expect(individualType({ features: f({ ...base, dob: DOB.exact }), probability: 1 })).toBeNull();
    // and no conflict: digital + address + dob without a name is still I when the first name is only near
    expect(individualType({ features: f({ first: FIRST.fuzzyLow, email: ID.agree, address: ADDR.unit }), probability: 1 })).toBe(
      'email+address',
    );
  });
});

describe('email near level', () => {
  it('Levenshtein distance as DuckDB computes it', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('zquist', 'zqiust')).toBe(2);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('same', 'same')).toBe(0);
    expect(emailLocalNear('zquist', 'zqiust')).toBe(true);
    expect(emailLocalNear('zquist', 'quistz1')).toBe(false);
    expect(emailLocalNear(null, 'zquist')).toBe(false);
  });

  const person = (over: Partial<CandidateAttributes> = {}): CandidateAttributes => ({
    personKey: 1n,
    householdKey: 10n,
    firstName: 'ZELDA',
    lastName: 'QUIST',
    nickname: null,
    dob: '1971-05-06',
    zip5: '02134',
    emailHashes: [emailSha256('zelda.quist@gmail.com'), emailSha256('zeldaquist@gmail.com')],
    emailKeys: ['zeldaquist@gmail.com'],
    phoneHashes: [],
    addresses: [],
    ...over,
  });
  const score = (rec: Record<string, unknown>, p = person()) => scoreCandidate(normalizeMatchInput(rec), p);

  it('a typo in the local part under the same full name, or the same local part at another domain, is near', () => {
    const typo = score({ first_name: 'Zelda', last_name: 'Quist', email: 'zeldaqiust@gmail.com' });
    expect(typo.features.email).toBe(EMAIL.near);
    expect(typo.individualType).toBe('email+name');
    expect(score({ first_name: 'Zelda', last_name: 'Quist', email: 'zeldaquist@gmial.com' }).features.email).toBe(EMAIL.near);
    // three edits away, or another full name at the domain: disagree
    expect(score({ first_name: 'Zelda', last_name: 'Quist', email: 'zqst99@gmail.com' }).features.email).toBe(ID.disagree);
    expect(score({ first_name: 'Zelda', last_name: 'Quint', email: 'zeldaqiust@gmail.com' }).features.email).toBe(ID.disagree);
    // the exact email still agrees
    expect(score({ first_name: 'Zelda', last_name: 'Quist', email: 'Zelda.Quist@gmail.com' }).features.email).toBe(ID.agree);
  });

  it('counts as the email for I only beside the exact name (or a nickname); never alone, never for D', () => {
    const name = { first: FIRST.exact, last: LAST.exact };
    // prior weights: 6 + 4.5 + 3.5 = 14
    expect(matchWeight(f({ email: EMAIL.near, ...name }))).toBe(14);
    expect(individualType({ features: f({ email: EMAIL.near, ...name }), probability: 1 })).toBe('email+name');
    expect(individualType({ features: f({ email: EMAIL.near, phone: ID.agree, ...name }), probability: 1 })).toBe('phone+name');
    // without the name, with the surname only, or with a disagreeing first name: not I
    expect(individualType({ features: f({ email: EMAIL.near, dob: DOB.exact, address: ADDR.unit }), probability: 1 })).toBeNull();
    expect(
      individualType({ features: f({ email: EMAIL.near, last: LAST.exact, first: FIRST.missing, dob: DOB.exact }), probability: 1 }),
    ).toBeNull();
    expect(individualType({ features: f({ email: EMAIL.near, last: LAST.exact, first: FIRST.disagree }), probability: 1 })).toBeNull();
    // a second damaged field beside it: a fuzzy or phonetic surname, a fuzzy first name
    expect(individualType({ features: f({ email: EMAIL.near, first: FIRST.exact, last: LAST.fuzzy }), probability: 1 })).toBeNull();
    expect(individualType({ features: f({ email: EMAIL.near, first: FIRST.exact, last: LAST.phonetic }), probability: 1 })).toBeNull();
    expect(individualType({ features: f({ email: EMAIL.near, first: FIRST.fuzzy, last: LAST.exact }), probability: 1 })).toBeNull();
    expect(individualType({ features: f({ email: EMAIL.near, first: FIRST.nickname, last: LAST.exact }), probability: 1 })).toBe(
      'email+name',
    );
  });

  it('a phonetic surname agrees for the name group: first + phonetic surname + exact dob is name_dob', () => {
    const features = f({ first: FIRST.exact, last: LAST.phonetic, dob: DOB.exact });
    expect(matchWeight(features)).toBe(4.5 + 1.5 + 9);
    expect(individualType({ features, probability: probability(15) })).toBe('name_dob');
  });
});

describe('params files written before the near and phonetic levels', () => {
  it('take the prior weights of the new levels, the recorded ones unchanged', () => {
    const old = { ...WEIGHTS, email: [0, 14, -4.2], first: [0, 8.8, 4.9, 5.8, 0.5, -7], last: [0, 10.5, 6, -9] };
    const w = appendNewLevels(old);
    expect(w.email).toEqual([0, 14, -4.2, WEIGHTS.email[EMAIL.near]]);
    expect(w.first).toEqual([0, 8.8, 4.9, 5.8, 0.5, -7, WEIGHTS.first[FIRST.fuzzyLow]]);
    expect(w.last).toEqual([0, 10.5, 6, -9, WEIGHTS.last[LAST.phonetic], WEIGHTS.last[LAST.fuzzyLow]]);
    expect(appendNewLevels(WEIGHTS)).toEqual(WEIGHTS);
  });
});
