/**
 * A small in-memory DuckDB `persons` table of hand-made rows: mixed case, padding, unicode, NULLs,
 * empty strings and lists, a bitmask column and a VARCHAR[] column. Columns are cycled with coprime
 * periods so the 40 rows combine values in many ways.
 */
import { DuckDBInstance, listValue, type DuckDBConnection } from '@duckdb/node-api';
import { INTEREST_VOCAB } from './fixture-catalog.ts';
import type { Row } from './oracle.ts';

const NAMES = [
  'Alice',
  'alice',
  ' Alice ',
  'ALICE',
  'Bob',
  'bob\t',
  'École',
  'école',
  'ÉCOLE',
  'Straße',
  'STRASSE',
  'strasse',
  '',
  '  ',
  null,
  'Zoë',
  "O'Brien",
  '%wild_',
  'a_c',
  'abc',
  'Ñandú',
  'ñandú ',
  '日本',
  'zoë',
];
const CITIES = [
  'SAN DIEGO',
  'SAN JOSE',
  'SANTA FE',
  'ÉVRY',
  'MÜNCHEN',
  null,
  'LOS ANGELES',
  'SAN_TOS',
  '100% TOWN',
  ' SAN DIEGO ',
  'STRASSBURG',
];
const STATES = ['CA', 'NV', 'NY', 'TX', null, 'CA', 'WA'];
const ZIPS = ['92101', '92102', '95110', '87501', null, '90001', '10001', '73301', ' 92101', '98101', '89501', '921'];
const AGES = [18, 25, 40, null, 65, 0, -1, 99, 40, 33, 120, null, 25];
const INCOMES = [0, 1500.5, null, 99999.99, -20.25, 50000, 1e6, 3];
const DATES = ['1990-01-01', '2000-02-29', '1969-12-31', null, '1985-06-15', '2023-11-05', '1990-01-01', '1950-03-10', '2010-08-20'];
const OWNERS = [true, false, null, true, false];
const INTERESTS: (string[] | null)[] = [
  ['Dogs'],
  ['Cats', 'Golf'],
  [],
  null,
  ['Straße'],
  ['École', 'Yoga'],
  [...INTEREST_VOCAB],
  ['Yoga'],
  ['Golf'],
  null,
  ['Cats'],
  ['Dogs', 'École'],
  [],
];
const TAGS: (string[] | null)[] = [
  ['alpha', ' Beta '],
  ['BETA'],
  [],
  null,
  ['gamma', 'alpha'],
  ['Ωmega', 'ÉTÉ'],
  ['été', 'x y'],
  ['beta\t'],
];

export const ROW_COUNT = 40;

export function fixtureRows(): Row[] {
  return Array.from({ length: ROW_COUNT }, (_, i) => ({
    id: i + 1,
    first_name: NAMES[i % NAMES.length]!,
    city: CITIES[i % CITIES.length]!,
    state: STATES[i % STATES.length]!,
    zip5: ZIPS[i % ZIPS.length]!,
    age: AGES[i % AGES.length]!,
    income: INCOMES[i % INCOMES.length]!,
    birth_date: DATES[i % DATES.length]!,
    is_homeowner: OWNERS[i % OWNERS.length]!,
    interests: INTERESTS[i % INTERESTS.length]!,
    tags: TAGS[i % TAGS.length]!,
  }));
}

export function maskOf(values: readonly string[] | null): bigint | null {
  if (values === null) return null;
  return values.reduce((m, v) => m | (1n << BigInt(INTEREST_VOCAB.indexOf(v as (typeof INTEREST_VOCAB)[number]))), 0n);
}

export async function createFixtureDb(rows: readonly Row[]): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  await conn.run(`CREATE TABLE persons (
    id INTEGER, first_name_col VARCHAR, city_col VARCHAR, state_col VARCHAR, zip5_col VARCHAR, age_col INTEGER,
    income_col DOUBLE, birth_date_col DATE, is_homeowner_col BOOLEAN, interests_mask BIGINT, tags_col VARCHAR[])`);
  for (const r of rows) {
    const tags = r.tags as string[] | null;
    await conn.run(
      `INSERT INTO persons VALUES ($1, $2, $3, $4, $5, $6, $7, CAST($8 AS DATE), $9, CAST($10 AS BIGINT),
      CASE WHEN $12 THEN CAST([] AS VARCHAR[]) ELSE $11 END)`,
      [
        r.id as number,
        r.first_name as string | null,
        r.city as string | null,
        r.state as string | null,
        r.zip5 as string | null,
        r.age as number | null,
        r.income as number | null,
        r.birth_date as string | null,
        r.is_homeowner as boolean | null,
        // The client cannot infer a type for an empty list, so empty lists go through the CASE.
        maskOf(r.interests as string[] | null),
        tags === null || tags.length === 0 ? null : listValue(tags),
        tags !== null && tags.length === 0,
      ],
    );
  }
  return conn;
}

/** Ids selected by a WHERE expression, ascending. */
export async function selectIds(conn: DuckDBConnection, where: string, params: unknown[]): Promise<number[]> {
  const res = await conn.run(`SELECT id FROM persons WHERE ${where} ORDER BY id`, params as never);
  return (await res.getRows()).map((r) => Number(r[0]));
}
