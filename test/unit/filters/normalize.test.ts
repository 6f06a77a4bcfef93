import { describe, expect, it } from 'vitest';
import { normalizeFilterInput, toDisjunctiveBranches } from '../../../src/graph/filters/index.ts';
import { CATALOG } from './fixture-catalog.ts';

describe('normalizeFilterInput', () => {
  it('turns flat filters into one AND group with a stable generated id', () => {
    const filters = [{ field: 'state', op: '=', value: 'CA' }];
    const a = normalizeFilterInput({ filters }, CATALOG);
    const b = normalizeFilterInput({ filters: structuredClone(filters) }, CATALOG);
    expect(a.ok && a.form).toBe('filters');
    if (!a.ok || !b.ok) throw new Error('unexpected');
    const [g] = a.groups as { id: string; combinator: string; filters: unknown[] }[];
    expect(g).toMatchObject({ combinator: 'AND', filters });
    expect(g!.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
    expect((b.groups as { id: string }[])[0]!.id).toBe(g!.id);
    const c = normalizeFilterInput({ filters: [{ field: 'state', op: '=', value: 'NV' }] }, CATALOG);
    expect(c.ok && (c.groups as { id: string }[])[0]!.id).not.toBe(g!.id);
  });

  it('resolves aliases to canonical names in both forms without mutating the input', () => {
    const input = {
      filters: [
        { field: 'zip', op: '=', value: '92101' },
        { field: 'postal_code', op: '=', value: '1' },
      ],
    };
    const n = normalizeFilterInput(input, CATALOG);
    expect(n.ok && (n.groups as { filters: { field: string }[] }[])[0]!.filters.map((f) => f.field)).toEqual(['zip5', 'zip5']);
    expect(input.filters[0]!.field).toBe('zip');
    const g = normalizeFilterInput(
      { filter_groups: [{ id: 'x', combinator: 'AND', filters: [{ field: 'zip_code', op: 'IS NULL' }] }] },
      CATALOG,
    );
    expect(g.ok && g.form).toBe('filter_groups');
    expect(g.ok && (g.groups as { filters: { field: string }[] }[])[0]!.filters[0]!.field).toBe('zip5');
  });

  it('keeps groups as given and passes malformed input through for the validator', () => {
    const groups = [{ id: 'a', combinator: 'AND', filters: [] }, 'junk'];
    const n = normalizeFilterInput({ filter_groups: groups }, CATALOG);
    expect(n.ok && n.groups).toEqual(groups);
    expect(normalizeFilterInput({ filters: 'nope' }, CATALOG)).toMatchObject({ ok: true, form: 'filters' });
  });

  it('rejects both forms at once', () => {
    const n = normalizeFilterInput({ filters: [], filter_groups: [] });
    expect(n).toMatchObject({ ok: false, issues: [{ path: '$', code: 'INVALID_FILTER_SHAPE' }] });
  });
});

describe('toDisjunctiveBranches', () => {
  const g = (id: string, combinator: 'AND' | 'OR') => ({ id, combinator, filters: [] });
  it('splits at OR, AND binding tighter; the first combinator is ignored', () => {
    const branches = toDisjunctiveBranches([g('1', 'OR'), g('2', 'AND'), g('3', 'OR'), g('4', 'AND'), g('5', 'OR')]);
    expect(branches.map((b) => b.map((x) => x.id))).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(toDisjunctiveBranches([])).toEqual([]);
  });
});
