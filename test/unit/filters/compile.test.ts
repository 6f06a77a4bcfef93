import { describe, expect, it } from 'vitest';
import { compileFilterGroups, type FilterCondition, type FilterGroup } from '../../../src/graph/filters/index.ts';
import { CATALOG } from './fixture-catalog.ts';

const g = (filters: FilterCondition[], combinator: 'AND' | 'OR' = 'AND', id = 'g'): FilterGroup => ({ id, filters, combinator });
const compile1 = (c: FilterCondition, opts = {}) => compileFilterGroups([g([c])], CATALOG, opts);

describe('compileFilterGroups output', () => {
  it('binds every value as a positional parameter; input never appears in the SQL', () => {
    const evil = "'; DROP TABLE x; --";
    const conds: FilterCondition[] = [
      { field: 'first_name', op: '=', value: evil },
      { field: 'first_name', op: 'LIKE', value: evil, text_comparison: 'case_insensitive', trim_whitespace: true },
      { field: 'city', op: 'IN', value: [evil, 'x'], text_comparison: 'case_insensitive' },
      { field: 'tags', op: 'ARRAY_CONTAINS_ANY', value: [evil], text_comparison: 'case_insensitive' },
      { field: 'birth_date', op: 'BETWEEN', value: ['1990-01-01', '1999-12-31'] },
    ];
    const { sql, params } = compileFilterGroups([g(conds)], CATALOG);
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain('1990');
    expect(params).toContain(evil);
    expect(params.filter((p) => p === evil).length).toBe(3);
    // $1..$n each used exactly once, in order
    expect([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))).toEqual(params.map((_, i) => i + 1));
  });

  it('takes column names from the catalog, qualified by the alias', () => {
    const { sql } = compile1({ field: 'age', op: '>', value: 3 }, { tableAlias: 'p' });
    expect(sql).toBe('((("p"."age_col" > CAST($1 AS BIGINT))))');
  });

  it('offsets parameter numbering', () => {
    const { sql, params } = compileFilterGroups([g([{ field: 'age', op: 'IN', value: [1, 2] }])], CATALOG, { paramOffset: 3 });
    expect(sql).toContain('$4');
    expect(sql).toContain('$5');
    expect(sql).not.toContain('$1');
    expect(params).toEqual([1, 2]);
  });

  it('joins groups with AND tighter than OR', () => {
    const c = (v: number): FilterCondition => ({ field: 'age', op: '=', value: v });
    const { sql } = compileFilterGroups([g([c(1)], 'OR', 'a'), g([c(2)], 'AND', 'b'), g([c(3)], 'OR', 'c')], CATALOG);
    const col = '"age_col"';
    expect(sql).toBe(`((((${col} = CAST($1 AS BIGINT))) AND ((${col} = CAST($2 AS BIGINT)))) OR ((${col} = CAST($3 AS BIGINT))))`);
  });

  it('an empty group list is TRUE', () => {
    expect(compileFilterGroups([], CATALOG)).toEqual({ sql: 'TRUE', params: [] });
  });

  it('uses the stored_upper shortcut only for ASCII input', () => {
    const ascii = compile1({ field: 'city', op: '=', value: 'san diego', text_comparison: 'case_insensitive' });
    expect(ascii.sql).not.toContain('lower(');
    expect(ascii.params).toEqual(['SAN DIEGO']);
    const unicode = compile1({ field: 'city', op: '=', value: 'straße', text_comparison: 'case_insensitive' });
    expect(unicode.sql).toContain('lower("city_col")');
    expect(unicode.params).toEqual(['straße']);
    const plain = compile1({ field: 'first_name', op: '=', value: 'al', text_comparison: 'case_insensitive' });
    expect(plain.sql).toContain('lower("first_name_col")');
  });

  it('compiles bitmask membership to a bit test with the mask computed from the vocabulary', () => {
    const one = compile1({ field: 'interests', op: 'ARRAY_CONTAINS', value: 'golf', text_comparison: 'case_insensitive' });
    expect(one.sql).toContain('("interests_mask" & CAST($1 AS BIGINT)) <> 0');
    expect(one.params).toEqual([4n]); // Golf is vocabulary index 2
    const any = compile1({ field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['Dogs', 'École'] });
    expect(any.params).toEqual([1n | 32n]);
    expect(compile1({ field: 'interests', op: 'IS NULL' }).sql).toContain('"interests_mask" = 0');
  });

  it('trims input on the JS side and the column with the same character set', () => {
    const { sql, params } = compile1({ field: 'first_name', op: '=', value: '\t Bob \n', trim_whitespace: true });
    expect(params).toEqual(['Bob']);
    expect(sql).toContain('trim("first_name_col", ');
  });

  it('refuses input the validator would reject', () => {
    expect(() => compile1({ field: 'nope', op: '=', value: 1 })).toThrow(/unknown filter field/);
    expect(() => compile1({ field: 'is_homeowner', op: '>', value: true })).toThrow(/not allowed/);
    expect(() => compile1({ field: 'interests', op: 'ARRAY_CONTAINS', value: 'Chess' })).toThrow(/vocabulary/);
    expect(() => compileFilterGroups([g([])], CATALOG)).toThrow(/no filters/);
  });
});
