/**
 * Semantic tests: for every operator and option, the rows DuckDB returns for the compiled SQL must
 * equal the rows an independent TypeScript predicate (oracle.ts) selects from the same data.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileFilterGroups, validateFilterGroups, type FilterCondition, type FilterGroup } from '../../../src/graph/filters/index.ts';
import { CATALOG } from './fixture-catalog.ts';
import { createFixtureDb, fixtureRows, ROW_COUNT, selectIds } from './fixture-db.ts';
import { evalCondition, type Row } from './oracle.ts';

type Opts = Pick<FilterCondition, 'text_comparison' | 'trim_whitespace'>;
const TEXT_OPTS: Opts[] = [
  {},
  { text_comparison: 'case_insensitive' },
  { trim_whitespace: true },
  { text_comparison: 'case_insensitive', trim_whitespace: true },
];

/** Every text option combination for a condition. */
const allText = (c: FilterCondition): FilterCondition[] => TEXT_OPTS.map((o) => ({ ...c, ...o }));
const trimOnly = (c: FilterCondition): FilterCondition[] => [c, { ...c, trim_whitespace: true }];

const CASES: FilterCondition[] = [
  // STRING, general folding path
  ...allText({ field: 'first_name', op: '=', value: 'Alice' }),
  ...allText({ field: 'first_name', op: '=', value: 'école' }),
  ...allText({ field: 'first_name', op: '=', value: 'straße' }),
  ...allText({ field: 'first_name', op: '=', value: 'STRASSE' }),
  ...allText({ field: 'first_name', op: '=', value: ' ñandú' }),
  ...allText({ field: 'first_name', op: '=', value: '' }),
  ...allText({ field: 'first_name', op: '!=', value: 'alice' }),
  ...allText({ field: 'first_name', op: 'IN', value: ['alice', 'Bob', 'ZOË'] }),
  ...allText({ field: 'first_name', op: 'NOT IN', value: ['alice', 'bob', 'École'] }),
  ...allText({ field: 'first_name', op: 'LIKE', value: 'a%' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: '%ß%' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: 'É%' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: '_b_' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: '\\%wild\\_' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: 'a\\_c' }),
  ...allText({ field: 'first_name', op: 'LIKE', value: '%' }),
  ...trimOnly({ field: 'first_name', op: '<', value: 'Bob' }),
  ...trimOnly({ field: 'first_name', op: '<=', value: 'Bob' }),
  ...trimOnly({ field: 'first_name', op: '>', value: 'Zoë' }),
  ...trimOnly({ field: 'first_name', op: '>=', value: 'alice' }),
  ...trimOnly({ field: 'first_name', op: 'BETWEEN', value: ['B', 'a_c'] }),
  { field: 'first_name', op: '=', value: "'; DROP TABLE persons; --" },
  { field: 'first_name', op: '=', value: "O'Brien" },
  { field: 'first_name', op: 'IS NULL' },
  { field: 'first_name', op: 'IS NOT NULL' },
  // STRING, stored upper case: ASCII input takes the shortcut, non-ASCII the general path
  ...allText({ field: 'city', op: '=', value: 'san diego' }),
  ...allText({ field: 'city', op: '=', value: 'évry' }),
  ...allText({ field: 'city', op: '=', value: 'Straßburg' }),
  ...allText({ field: 'city', op: '!=', value: 'San Diego' }),
  ...allText({ field: 'city', op: 'IN', value: ['san jose', 'münchen'] }),
  ...allText({ field: 'city', op: 'IN', value: ['san jose', 'Los Angeles'] }),
  ...allText({ field: 'city', op: 'NOT IN', value: ['santa fe', 'SAN JOSE'] }),
  ...allText({ field: 'city', op: 'LIKE', value: 'san%' }),
  ...allText({ field: 'city', op: 'LIKE', value: 'san\\_%' }),
  ...allText({ field: 'city', op: 'LIKE', value: '100\\%%' }),
  ...allText({ field: 'city', op: 'LIKE', value: '%ü%' }),
  { field: 'city', op: 'IS NULL' },
  // enum STRING
  { field: 'state', op: '=', value: 'CA' },
  { field: 'state', op: '=', value: 'ca', text_comparison: 'case_insensitive' },
  { field: 'state', op: '!=', value: 'CA' },
  { field: 'state', op: 'IN', value: ['CA', 'NV'] },
  { field: 'state', op: 'NOT IN', value: ['ca', 'ny'], text_comparison: 'case_insensitive' },
  { field: 'state', op: 'IS NULL' },
  { field: 'state', op: 'IS NOT NULL' },
  // ZIP strings
  ...trimOnly({ field: 'zip5', op: '=', value: '92101' }),
  ...trimOnly({ field: 'zip5', op: 'LIKE', value: '921%' }),
  ...trimOnly({ field: 'zip5', op: 'BETWEEN', value: ['90000', '93000'] }),
  ...trimOnly({ field: 'zip5', op: '<', value: '9' }),
  // INTEGER
  ...(['=', '!=', '<', '<=', '>', '>='] as const).flatMap((op) =>
    [25, 0, -1].map((value): FilterCondition => ({ field: 'age', op, value })),
  ),
  { field: 'age', op: 'IN', value: [18, 40, 120] },
  { field: 'age', op: 'NOT IN', value: [18, 40] },
  { field: 'age', op: 'BETWEEN', value: [18, 40] },
  { field: 'age', op: 'BETWEEN', value: [40, 40] },
  { field: 'age', op: 'IS NULL' },
  { field: 'age', op: 'IS NOT NULL' },
  // NUMBER
  { field: 'income', op: '>', value: 1000.25 },
  { field: 'income', op: '=', value: 1500.5 },
  { field: 'income', op: 'BETWEEN', value: [-100, 3] },
  { field: 'income', op: 'IN', value: [0, 3, 99999.99] },
  { field: 'income', op: 'NOT IN', value: [0] },
  { field: 'income', op: '<=', value: -20.25 },
  // DATE
  ...(['=', '!=', '<', '<=', '>', '>='] as const).map((op): FilterCondition => ({ field: 'birth_date', op, value: '1990-01-01' })),
  { field: 'birth_date', op: 'BETWEEN', value: ['1969-12-31', '2000-02-29'] },
  { field: 'birth_date', op: 'IN', value: ['2000-02-29', '1950-03-10'] },
  { field: 'birth_date', op: 'NOT IN', value: ['1990-01-01'] },
  { field: 'birth_date', op: 'IS NULL' },
  // BOOLEAN
  { field: 'is_homeowner', op: '=', value: true },
  { field: 'is_homeowner', op: '=', value: false },
  { field: 'is_homeowner', op: '!=', value: true },
  { field: 'is_homeowner', op: 'IN', value: [true] },
  { field: 'is_homeowner', op: 'NOT IN', value: [false] },
  { field: 'is_homeowner', op: 'IS NULL' },
  { field: 'is_homeowner', op: 'IS NOT NULL' },
  // ARRAY as bitmask
  ...allText({ field: 'interests', op: 'ARRAY_CONTAINS', value: 'Dogs' }),
  { field: 'interests', op: 'ARRAY_CONTAINS', value: 'dogs', text_comparison: 'case_insensitive' },
  { field: 'interests', op: 'ARRAY_CONTAINS', value: ' Golf ', trim_whitespace: true },
  { field: 'interests', op: 'ARRAY_CONTAINS', value: ' straße ', text_comparison: 'case_insensitive', trim_whitespace: true },
  { field: 'interests', op: 'ARRAY_CONTAINS', value: 'école', text_comparison: 'case_insensitive' },
  { field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['Cats', 'Yoga'] },
  { field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['dogs', 'ÉCOLE'], text_comparison: 'case_insensitive' },
  { field: 'interests', op: 'IS NULL' },
  { field: 'interests', op: 'IS NOT NULL' },
  // ARRAY as VARCHAR[]
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS', value: 'alpha' }),
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS', value: 'beta' }),
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS', value: ' Beta ' }),
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS', value: 'été' }),
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS_ANY', value: ['x y', 'gamma', 'ωMEGA'] }),
  ...allText({ field: 'tags', op: 'ARRAY_CONTAINS_ANY', value: ['BETA', 'ÉTÉ'] }),
  { field: 'tags', op: 'IS NULL' },
  { field: 'tags', op: 'IS NOT NULL' },
];

// Bitmask cases whose input is outside the vocabulary under some option combination are not valid
// filters; the allText expansion above only uses 'Dogs', which exists under every option.
const group = (filters: FilterCondition[], combinator: 'AND' | 'OR' = 'AND', id = 'g'): FilterGroup => ({ id, filters, combinator });

let conn: DuckDBConnection;
let rows: Row[];
beforeAll(async () => {
  rows = fixtureRows();
  conn = await createFixtureDb(rows);
});

async function compareWithOracle(groups: FilterGroup[], predicate: (r: Row) => boolean): Promise<number[]> {
  const v = validateFilterGroups(groups, CATALOG);
  if (!v.ok) throw new Error(`fixture filter rejected: ${JSON.stringify(v.issues)}`);
  const { sql, params } = compileFilterGroups(v.groups, CATALOG);
  const got = await selectIds(conn, sql, params);
  const want = rows.filter(predicate).map((r) => r.id as number);
  expect({ sql, got }).toEqual({ sql, got: want });
  return got;
}

/**
 * An exact comparison with lower case on a field stored in upper case can never match: validation
 * refuses it with the upper-case form as the suggestion instead of compiling it.
 */
const UPPER_FIELDS = new Set(CATALOG.filter((f) => f.stored_upper).map((f) => f.name));
const neverMatches = (c: FilterCondition) =>
  UPPER_FIELDS.has(c.field) &&
  c.text_comparison !== 'case_insensitive' &&
  c.op !== 'LIKE' &&
  [c.value]
    .flat()
    .some((v) => typeof v === 'string' && (c.trim_whitespace ? v.trim() : v) !== (c.trim_whitespace ? v.trim() : v).toUpperCase());
const COMPILED = CASES.filter((c) => !neverMatches(c));
const REFUSED = CASES.filter(neverMatches);

describe('compiled SQL selects exactly the rows the reference predicate selects', () => {
  const counts: number[] = [];
  it.each(COMPILED.map((c) => [JSON.stringify(c), c] as const))('%s', async (_name, c) => {
    counts.push((await compareWithOracle([group([c])], (r) => evalCondition(r, c))).length);
  });

  it.each(REFUSED.map((c) => [JSON.stringify(c), c] as const))('refused, upper case suggested: %s', (_name, c) => {
    const v = validateFilterGroups([group([c])], CATALOG);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.issues[0]).toMatchObject({ code: 'INVALID_FILTER_VALUE' });
    expect(v.issues[0]!.suggestions[0]).toBe(v.issues[0]!.suggestions[0]!.toUpperCase());
    // What the refused value would do: = / IN select nothing, != / NOT IN exclude nothing (the oracle agrees).
    const upper = (v: unknown) =>
      typeof v === 'string' ? (c.trim_whitespace ? v.trim() : v).toUpperCase() === (c.trim_whitespace ? v.trim() : v) : true;
    const kept = { ...c, value: Array.isArray(c.value) ? c.value.filter(upper) : c.value } as FilterCondition;
    const selected = fixtureRows().filter((r) => evalCondition(r, c)).length;
    if (c.op === '=') expect(selected).toBe(0);
    else if (c.op === 'IN')
      expect(selected).toBe(fixtureRows().filter((r) => (kept.value as unknown[]).length > 0 && evalCondition(r, kept)).length);
    else
      expect(selected).toBe(
        fixtureRows().filter((r) =>
          (Array.isArray(kept.value) && kept.value.length === 0) || c.op === '!=' ? r.city !== null : evalCondition(r, kept),
        ).length,
      );
  });

  it('the cases are discriminating (most select some but not all rows)', () => {
    expect(counts.length).toBe(COMPILED.length);
    expect(REFUSED.length).toBeGreaterThan(5);
    const partial = counts.filter((n) => n > 0 && n < ROW_COUNT).length;
    expect(partial / counts.length).toBeGreaterThan(0.8);
  });
});

describe('group combination against hand-written boolean expressions', () => {
  const ca: FilterCondition = { field: 'state', op: '=', value: 'CA' };
  const adult: FilterCondition = { field: 'age', op: '>=', value: 25 };
  const munich: FilterCondition = { field: 'city', op: '=', value: 'münchen', text_comparison: 'case_insensitive' };
  const owner: FilterCondition = { field: 'is_homeowner', op: '=', value: true };
  const dogs: FilterCondition = { field: 'interests', op: 'ARRAY_CONTAINS', value: 'Dogs' };
  const e = (c: FilterCondition) => (r: Row) => evalCondition(r, c);

  it('conditions inside a group are ANDed', async () => {
    await compareWithOracle([group([ca, adult])], (r) => e(ca)(r) && e(adult)(r));
  });

  it('g1 OR g2 AND g3 is g1 OR (g2 AND g3)', async () => {
    const got = await compareWithOracle(
      [group([ca], 'AND', 'a'), group([munich], 'OR', 'b'), group([owner], 'AND', 'c')],
      (r) => e(ca)(r) || (e(munich)(r) && e(owner)(r)),
    );
    // and it is not the left-to-right reading (g1 OR g2) AND g3
    const leftToRight = rows.filter((r) => (e(ca)(r) || e(munich)(r)) && e(owner)(r)).map((r) => r.id);
    expect(got).not.toEqual(leftToRight);
  });

  it('g1 AND g2 OR g3 AND g4 is (g1 AND g2) OR (g3 AND g4); first combinator ignored', async () => {
    await compareWithOracle(
      [group([ca], 'OR', 'a'), group([adult], 'AND', 'b'), group([munich, dogs], 'OR', 'c'), group([owner], 'AND', 'd')],
      (r) => (e(ca)(r) && e(adult)(r)) || (e(munich)(r) && e(dogs)(r) && e(owner)(r)),
    );
  });

  it('parameter offset and table alias work inside a larger query', async () => {
    const v = validateFilterGroups([group([ca]), group([adult], 'OR', 'h')], CATALOG);
    if (!v.ok) throw new Error('invalid');
    const { sql, params } = compileFilterGroups(v.groups, CATALOG, { tableAlias: 'p', paramOffset: 1 });
    const res = await conn.run(`SELECT p.id FROM persons p WHERE p.id > $1 AND ${sql} ORDER BY 1`, [10, ...params] as never);
    const got = (await res.getRows()).map((r) => Number(r[0]));
    expect(got).toEqual(rows.filter((r) => (r.id as number) > 10 && (e(ca)(r) || e(adult)(r))).map((r) => r.id));
  });

  it('a malicious value is data, not SQL: the table survives', async () => {
    const bad = "x'); DROP TABLE persons; --";
    await compareWithOracle([group([{ field: 'first_name', op: 'LIKE', value: bad }])], () => false);
    const res = await conn.run('SELECT count(*) FROM persons');
    expect(Number((await res.getRows())[0]![0])).toBe(ROW_COUNT);
  });
});
