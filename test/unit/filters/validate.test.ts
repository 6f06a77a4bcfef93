import { describe, expect, it } from 'vitest';
import { validateFilterGroups, type FilterIssue } from '../../../src/graph/filters/index.ts';
import { CATALOG } from './fixture-catalog.ts';

const groups = (...filters: unknown[]) => [{ id: 'g1', combinator: 'AND', filters }];
function issuesOf(input: unknown, form?: 'filters' | 'filter_groups'): FilterIssue[] {
  const r = validateFilterGroups(input, CATALOG, form ? { form } : {});
  if (r.ok) throw new Error('expected issues');
  return r.issues;
}
const one = (cond: unknown) => issuesOf(groups(cond));

describe('validateFilterGroups: valid input', () => {
  it('returns canonical groups', () => {
    const r = validateFilterGroups(groups({ field: 'zip', op: 'IN', value: ['92101'], trim_whitespace: true }), CATALOG);
    expect(r).toEqual({
      ok: true,
      groups: [{ id: 'g1', combinator: 'AND', filters: [{ field: 'zip5', op: 'IN', value: ['92101'], trim_whitespace: true }] }],
    });
  });
  it('accepts value: null on IS NULL and drops it', () => {
    const r = validateFilterGroups(groups({ field: 'age', op: 'IS NULL', value: null }), CATALOG);
    expect(r.ok && r.groups[0]!.filters[0]).toEqual({ field: 'age', op: 'IS NULL' });
  });
});

describe('INVALID_FILTER_SHAPE', () => {
  it.each([
    ['not an array', {}, '$.filter_groups'],
    ['empty list', [], '$.filter_groups'],
    ['group not an object', [42], '$.filter_groups[0]'],
    ['missing id', [{ combinator: 'AND', filters: [{ field: 'age', op: 'IS NULL' }] }], '$.filter_groups[0].id'],
    ['bad combinator', [{ id: 'a', combinator: 'XOR', filters: [{ field: 'age', op: 'IS NULL' }] }], '$.filter_groups[0].combinator'],
    ['empty filters', [{ id: 'a', combinator: 'AND', filters: [] }], '$.filter_groups[0].filters'],
    ['extra group key', [{ id: 'a', combinator: 'AND', filters: [{ field: 'age', op: 'IS NULL' }], not: true }], '$.filter_groups[0].not'],
    ['extra condition key', groups({ field: 'age', op: 'IS NULL', negate: true }), '$.filter_groups[0].filters[0].negate'],
    ['condition not an object', groups('age = 3'), '$.filter_groups[0].filters[0]'],
    ['missing field', groups({ op: 'IS NULL' }), '$.filter_groups[0].filters[0].field'],
    ['missing op', groups({ field: 'age' }), '$.filter_groups[0].filters[0].op'],
    [
      'trim not boolean',
      groups({ field: 'first_name', op: '=', value: 'a', trim_whitespace: 'yes' }),
      '$.filter_groups[0].filters[0].trim_whitespace',
    ],
  ])('%s', (_n, input, path) => {
    expect(issuesOf(input)).toContainEqual(expect.objectContaining({ code: 'INVALID_FILTER_SHAPE', path }));
  });
  it('rejects duplicate group ids', () => {
    const g = { id: 'same', combinator: 'AND', filters: [{ field: 'age', op: 'IS NULL' }] };
    expect(issuesOf([g, { ...g, combinator: 'OR' }])).toEqual([
      expect.objectContaining({ path: '$.filter_groups[1].id', code: 'INVALID_FILTER_SHAPE' }),
    ]);
  });
});

describe('field and operator issues', () => {
  it('UNKNOWN_FILTER_FIELD suggests the nearest canonical names', () => {
    const [i] = one({ field: 'stat', op: '=', value: 'CA' });
    expect(i).toMatchObject({ path: '$.filter_groups[0].filters[0].field', code: 'UNKNOWN_FILTER_FIELD' });
    expect(i!.suggestions[0]).toBe('state');
    expect(i!.suggestions.length).toBeLessThanOrEqual(3);
    expect(one({ field: 'zipcode', op: '=', value: '1' })[0]!.suggestions).toContain('zip5'); // via the zip_code alias
    expect(one({ field: 'qqqqqqqqqqqq', op: '=', value: 1 })[0]!.suggestions).toEqual([]);
  });
  it('FIELD_NOT_FILTERABLE', () => {
    expect(one({ field: 'email', op: '=', value: 'a@b.c' })).toEqual([
      expect.objectContaining({ path: '$.filter_groups[0].filters[0].field', code: 'FIELD_NOT_FILTERABLE' }),
    ]);
  });
  it('UNSUPPORTED_FILTER_OPERATOR lists the allowed operators', () => {
    const [i] = one({ field: 'is_homeowner', op: '>', value: true });
    expect(i).toMatchObject({
      path: '$.filter_groups[0].filters[0].op',
      code: 'UNSUPPORTED_FILTER_OPERATOR',
      suggestions: ['=', '!=', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL'],
    });
    expect(one({ field: 'age', op: 'EQUALS', value: 1 })[0]!.code).toBe('UNSUPPORTED_FILTER_OPERATOR');
    // listed by the catalog but meaningless for the type
    const [like] = one({ field: 'household_size', op: 'LIKE', value: '3%' });
    expect(like!.code).toBe('UNSUPPORTED_FILTER_OPERATOR');
    expect(like!.suggestions).not.toContain('LIKE');
  });
});

describe('UNSUPPORTED_TEXT_COMPARISON', () => {
  it.each([
    ['unknown value', { field: 'first_name', op: '=', value: 'a', text_comparison: 'fuzzy' }, 'text_comparison'],
    ['non-text field', { field: 'age', op: '=', value: 1, text_comparison: 'case_insensitive' }, 'text_comparison'],
    ['ordering operator', { field: 'first_name', op: '<', value: 'a', text_comparison: 'case_insensitive' }, 'text_comparison'],
    ['trim on a number', { field: 'age', op: '=', value: 1, trim_whitespace: true }, 'trim_whitespace'],
  ])('%s', (_n, cond, key) => {
    expect(one(cond)).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_TEXT_COMPARISON', path: `$.filter_groups[0].filters[0].${key}` }),
    ]);
  });
  it('exact is always accepted', () => {
    expect(validateFilterGroups(groups({ field: 'age', op: '=', value: 1, text_comparison: 'exact' }), CATALOG).ok).toBe(true);
  });
});

describe('INVALID_FILTER_VALUE', () => {
  it.each([
    ['string for integer', { field: 'age', op: '=', value: '30' }, '.value'],
    ['fraction for integer', { field: 'age', op: '=', value: 30.5 }, '.value'],
    ['NaN-ish number', { field: 'income', op: '>', value: 'lots' }, '.value'],
    ['string boolean', { field: 'is_homeowner', op: '=', value: 'true' }, '.value'],
    ['number boolean', { field: 'is_homeowner', op: '=', value: 1 }, '.value'],
    ['bad date', { field: 'birth_date', op: '=', value: '2021-02-30' }, '.value'],
    ['datetime', { field: 'birth_date', op: '=', value: '2021-02-03T00:00:00Z' }, '.value'],
    ['number for string', { field: 'zip5', op: '=', value: 92101 }, '.value'],
    ['missing value', { field: 'age', op: '=' }, '.value'],
    ['null value', { field: 'age', op: '!=', value: null }, '.value'],
    ['array for =', { field: 'age', op: '=', value: [1] }, '.value'],
    ['scalar for IN', { field: 'age', op: 'IN', value: 1 }, '.value'],
    ['empty IN', { field: 'age', op: 'IN', value: [] }, '.value'],
    ['huge IN', { field: 'age', op: 'IN', value: Array.from({ length: 1001 }, (_, i) => i) }, '.value'],
    ['BETWEEN one value', { field: 'age', op: 'BETWEEN', value: [1] }, '.value'],
    ['BETWEEN reversed', { field: 'age', op: 'BETWEEN', value: [40, 18] }, '.value'],
    ['BETWEEN reversed dates', { field: 'birth_date', op: 'BETWEEN', value: ['2000-01-01', '1999-12-31'] }, '.value'],
    ['IS NULL with value', { field: 'age', op: 'IS NULL', value: 3 }, '.value'],
    ['LIKE non-string', { field: 'first_name', op: 'LIKE', value: 5 }, '.value'],
    ['bad IN element', { field: 'age', op: 'IN', value: [1, 'two', 3] }, '.value[1]'],
    ['ARRAY_CONTAINS with a list', { field: 'tags', op: 'ARRAY_CONTAINS', value: ['a', 'b'] }, '.value'],
  ])('%s', (_n, cond, suffix) => {
    expect(one(cond)).toEqual([expect.objectContaining({ code: 'INVALID_FILTER_VALUE', path: `$.filter_groups[0].filters[0]${suffix}` })]);
  });
  it('suggests the fix where there is one', () => {
    expect(one({ field: 'age', op: 'BETWEEN', value: [40, 18] })[0]!.suggestions).toEqual(['[18,40]']);
    expect(one({ field: 'zip5', op: '=', value: 92101 })[0]!.suggestions).toEqual(['92101']);
    expect(one({ field: 'age', op: '=', value: [1, 2] })[0]!.suggestions).toEqual(['IN']);
  });
});

describe('enum values', () => {
  it('INVALID_ENUM_VALUE under exact comparison offers the case-folded match first', () => {
    const [i] = one({ field: 'gender', op: '=', value: 'male' });
    expect(i).toMatchObject({ code: 'INVALID_ENUM_VALUE', path: '$.filter_groups[0].filters[0].value' });
    expect(i!.suggestions[0]).toBe('Male');
    expect(i!.message).toMatch(/case-sensitive/);
  });
  it('INVALID_ENUM_VALUE suggests nearest values and points at the list element', () => {
    const [i] = one({ field: 'state', op: 'IN', value: ['CA', 'NX'] });
    expect(i).toMatchObject({ code: 'INVALID_ENUM_VALUE', path: '$.filter_groups[0].filters[0].value[1]' });
    expect(i!.suggestions).toEqual(expect.arrayContaining(['NV', 'NY', 'TX']));
    expect(one({ field: 'interests', op: 'ARRAY_CONTAINS', value: 'Golfing' })[0]).toMatchObject({
      code: 'INVALID_ENUM_VALUE',
      suggestions: ['Golf'],
    });
  });
  it('case-insensitive and trimmed inputs that map to one value are valid', () => {
    expect(
      validateFilterGroups(
        groups({ field: 'gender', op: '=', value: ' male ', text_comparison: 'case_insensitive', trim_whitespace: true }),
        CATALOG,
      ).ok,
    ).toBe(true);
    expect(one({ field: 'gender', op: '=', value: ' male ', text_comparison: 'case_insensitive' })[0]!.code).toBe('INVALID_ENUM_VALUE');
  });
  it('AMBIGUOUS_ENUM_VALUE when folding merges several values', () => {
    const [i] = one({ field: 'segment_code', op: '=', value: 'A1', text_comparison: 'case_insensitive' });
    expect(i).toMatchObject({ code: 'AMBIGUOUS_ENUM_VALUE', path: '$.filter_groups[0].filters[0].value', suggestions: ['A1', 'a1'] });
    expect(validateFilterGroups(groups({ field: 'segment_code', op: '=', value: 'a1' }), CATALOG).ok).toBe(true);
  });
  it('LIKE patterns are not vocabulary members', () => {
    expect(validateFilterGroups(groups({ field: 'first_name', op: 'LIKE', value: 'A%' }), CATALOG).ok).toBe(true);
  });
});

describe('paths and collection', () => {
  it('uses $.filters paths for the flat form', () => {
    const issues = issuesOf(
      [
        {
          id: 'x',
          combinator: 'AND',
          filters: [
            { field: 'age', op: '=', value: 'x' },
            { field: 'nope', op: '=' },
          ],
        },
      ],
      'filters',
    );
    expect(issues.map((i) => i.path)).toEqual(['$.filters[0].value', '$.filters[1].field']);
    expect(issuesOf([], 'filters')[0]!.path).toBe('$.filters');
  });
  it('collects every issue across groups', () => {
    const issues = issuesOf([
      {
        id: 'a',
        combinator: 'AND',
        filters: [
          { field: 'age', op: 'LIKE', value: 1 },
          { field: 'state', op: '=', value: 'ZZ' },
        ],
      },
      { id: 'b', combinator: 'MAYBE', filters: [{ field: 'birth_date', op: '>', value: 'yesterday' }] },
    ]);
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['$.filter_groups[0].filters[0].op', 'UNSUPPORTED_FILTER_OPERATOR'],
      ['$.filter_groups[0].filters[1].value', 'INVALID_ENUM_VALUE'],
      ['$.filter_groups[1].combinator', 'INVALID_FILTER_SHAPE'],
      ['$.filter_groups[1].filters[0].value', 'INVALID_FILTER_VALUE'],
    ]);
    for (const i of issues) expect(i.message.length).toBeGreaterThan(10);
  });
});

describe('values stored in upper case (the catalog says so): a hint from the catalog, never from the data', () => {
  it('refuses a lower-case exact comparison with the upper-case form as the suggestion', () => {
    const [issue] = one({ field: 'city', op: '=', value: 'chicago' });
    expect(issue).toMatchObject({ path: '$.filter_groups[0].filters[0].value', code: 'INVALID_FILTER_VALUE', suggestions: ['CHICAGO'] });
    expect(issue!.message).toContain('case_insensitive');
    const [inList] = one({ field: 'city', op: 'IN', value: ['BOSTON', 'denver'] });
    expect(inList).toMatchObject({ path: '$.filter_groups[0].filters[0].value[1]', suggestions: ['DENVER'] });
  });
  it('accepts the upper-case form, a case-insensitive comparison, and LIKE patterns', () => {
    for (const c of [
      { field: 'city', op: '=', value: 'CHICAGO' },
      { field: 'city', op: '=', value: 'chicago', text_comparison: 'case_insensitive' },
      { field: 'city', op: 'LIKE', value: 'chi%' },
    ])
      expect(validateFilterGroups(groups(c), CATALOG).ok, JSON.stringify(c)).toBe(true);
  });
});
