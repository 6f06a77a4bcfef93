/**
 * The process's copy of m_person (resident-persons.ts) on fixed chunks: lookups by key, NULLs, dictionary
 * round trips, a scan that arrives out of key order, too many rows, and an aborted load.
 */
import { describe, expect, it } from 'vitest';
import { loadResidentPersons } from '../../../src/identity/matcher/resident-persons.ts';

type Chunk = unknown[][];
// Columns in PERSON_COLUMNS order: person_key, household_key, hh_ref, first_name, last_name, nickname, dob, zip5, house.
const chunks: Chunk[] = [
  [
    [5n, 3n],
    [50n, 30n],
    [50n, 30n],
    ['ANN', 'BOB'],
    ['LEE', 'LEE'],
    [null, 'ROB'],
    ['1980-01-02', null],
    ['02134', '10001'],
    ['12', null],
  ],
  [
    [9n, 1n],
    [null, 10n],
    [null, 10n],
    ['ANN', 'CY'],
    ['ZED', 'O NEIL'],
    [null, null],
    ['1980-01-02', '2001-12-31'],
    [null, '02134'],
    [null, '7'],
  ],
];
const streamOf = (cs: Chunk[]) => async (_sql: string, onChunk: (cols: unknown[][], n: number) => void | Promise<void>) => {
  for (const c of cs) await onChunk(c, (c[0] as unknown[]).length);
};

describe('resident persons', () => {
  it('answers rows by key in the order asked, each once, even when the scan came out of key order', async () => {
    const r = (await loadResidentPersons(streamOf(chunks), 'mx', 4))!;
    expect(r.count).toBe(4);
    expect(r.bytes).toBe(4 * 48);
    expect(r.rows([9n, 1n, 7n, 1n, 5n])).toEqual([
      {
        person_key: 9n,
        household_key: null,
        hh_ref: null,
        first_name: 'ANN',
        last_name: 'ZED',
        nickname: null,
        dob: '1980-01-02',
        zip5: null,
        house: null,
      },
      {
        person_key: 1n,
        household_key: 10n,
        hh_ref: 10n,
        first_name: 'CY',
        last_name: 'O NEIL',
        nickname: null,
        dob: '2001-12-31',
        zip5: '02134',
        house: '7',
      },
      {
        person_key: 5n,
        household_key: 50n,
        hh_ref: 50n,
        first_name: 'ANN',
        last_name: 'LEE',
        nickname: null,
        dob: '1980-01-02',
        zip5: '02134',
        house: '12',
      },
    ]);
    expect(r.rows([3n])[0]).toMatchObject({ nickname: 'ROB', dob: null, zip5: '10001' });
    expect(r.rows([])).toEqual([]);
  });

  it('refuses more rows than counted, and returns null when aborted', async () => {
    await expect(loadResidentPersons(streamOf(chunks), 'mx', 3)).rejects.toThrow(/more than 3 rows/);
    const aborted = new AbortController();
    aborted.abort();
    expect(await loadResidentPersons(streamOf(chunks), 'mx', 4, aborted.signal)).toBeNull();
  });
});
