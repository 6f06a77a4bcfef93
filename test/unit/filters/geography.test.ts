import { describe, expect, it } from 'vitest';
import {
  checkRecordLimitGeography,
  geographyNarrowing,
  type FilterCondition,
  type FilterGroup,
  type Zip3Resolver,
} from '../../../src/graph/filters/index.ts';

const g = (id: string, filters: FilterCondition[], combinator: 'AND' | 'OR' = 'AND'): FilterGroup => ({ id, filters, combinator });
const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);

/** A toy warehouse: CA has 120 ZIP3s (900..), NV 5, city SPRINGFIELD spans two states. */
const calls: Parameters<Zip3Resolver>[] = [];
const resolver: Zip3Resolver = async (field, values, opts) => {
  calls.push([field, values, opts]);
  const key = (v: string) => (opts.case_insensitive ? v.toUpperCase() : v);
  const table: Record<string, string[]> = {
    'state:CA': [...range('9', 100), ...range('8', 20)],
    'state:NV': ['889', '890', '891', '893', '894'],
    'city:SPRINGFIELD': ['890', '010', '011'],
    'city:LAS VEGAS': ['889', '890', '891'],
  };
  return values.flatMap((v) => (field === 'zip5' ? [v.slice(0, 3)] : (table[`${field}:${key(v)}`] ?? [])));
};

describe('geographyNarrowing', () => {
  it('collects equality geography per OR branch, ignoring LIKE and negations', () => {
    const branches = geographyNarrowing([
      g('a', [
        { field: 'state', op: '=', value: 'NV' },
        { field: 'age', op: '>', value: 3 },
      ]),
      g('b', [{ field: 'zip5', op: 'IN', value: ['92101', '92102'] }], 'AND'),
      g(
        'c',
        [
          { field: 'city', op: 'LIKE', value: 'SAN%' },
          { field: 'state', op: '!=', value: 'CA' },
        ],
        'OR',
      ),
    ]);
    expect(branches).toEqual([
      {
        branch: 0,
        group_ids: ['a', 'b'],
        conditions: [
          { group_id: 'a', field: 'state', values: ['NV'], case_insensitive: false, trim_whitespace: false },
          { group_id: 'b', field: 'zip5', values: ['92101', '92102'], case_insensitive: false, trim_whitespace: false },
        ],
      },
      { branch: 1, group_ids: ['c'], conditions: [] },
    ]);
  });
});

describe('checkRecordLimitGeography', () => {
  it('passes when every branch is narrowed to at most 100 ZIP3s', async () => {
    const res = await checkRecordLimitGeography(
      [
        g('a', [{ field: 'state', op: '=', value: 'nv', text_comparison: 'case_insensitive' }]),
        g('b', [{ field: 'zip3', op: 'IN', value: ['100', ' 101'], trim_whitespace: true }], 'OR'),
      ],
      resolver,
    );
    expect(res).toEqual({ ok: true });
    expect(calls.at(-1)).toEqual(['state', ['nv'], { case_insensitive: true, trim_whitespace: false }]);
  });

  it('fails a branch without geography and names it', async () => {
    const res = await checkRecordLimitGeography(
      [g('a', [{ field: 'state', op: '=', value: 'NV' }]), g('b', [{ field: 'age', op: '>', value: 30 }], 'OR')],
      resolver,
    );
    expect(res).toMatchObject({ ok: false, branches: [{ branch: 1, group_ids: ['b'], reason: 'NO_GEOGRAPHY' }] });
  });

  it('fails a branch covering more than 100 ZIP3s', async () => {
    const res = await checkRecordLimitGeography([g('a', [{ field: 'state', op: 'IN', value: ['CA', 'NV'] }])], resolver);
    expect(res).toMatchObject({ ok: false, branches: [{ branch: 0, reason: 'TOO_MANY_ZIP3', zip3_count: 125 }] });
  });

  it('intersects several geography conditions within a branch', async () => {
    // CA alone is 120 ZIP3s, but CA AND zip5 in 900xx/901xx is two.
    const res = await checkRecordLimitGeography(
      [g('a', [{ field: 'state', op: '=', value: 'CA' }]), g('b', [{ field: 'zip5', op: 'IN', value: ['90001', '90101'] }], 'AND')],
      resolver,
    );
    expect(res).toEqual({ ok: true });
    const disjoint = await checkRecordLimitGeography(
      [
        g('a', [
          { field: 'state', op: '=', value: 'NV' },
          { field: 'city', op: '=', value: 'SPRINGFIELD' },
        ]),
      ],
      resolver,
    );
    expect(disjoint).toEqual({ ok: true });
  });

  it('an OR of groups is checked branch by branch, not as a union', async () => {
    const res = await checkRecordLimitGeography(
      [g('a', [{ field: 'state', op: '=', value: 'CA' }]), g('b', [{ field: 'zip5', op: '=', value: '90001' }], 'OR')],
      resolver,
    );
    expect(res).toMatchObject({ ok: false, branches: [{ branch: 0, group_ids: ['a'], reason: 'TOO_MANY_ZIP3' }] });
  });
});
