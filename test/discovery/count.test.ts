import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { shownSet, shownSetGroups } from '../helpers/privacy.ts';
import { countWhere, generateTestGraph, readPersons, type PersonRow } from './graph.ts';

const interestValues = (() => {
  const f = CATALOG_FIELDS.find((x) => x.name === 'interests')!;
  return f.storage.kind === 'bitmask' ? f.storage.values : [];
})();
const hasInterest = (r: PersonRow, v: string) => ((BigInt(r.interests_mask as bigint) >> BigInt(interestValues.indexOf(v))) & 1n) === 1n;
const s = (v: unknown) => (v === null || v === undefined ? null : String(v));

describe('POST /v1/discovery/count (spec 4.2)', () => {
  let t: TestApp;
  let token: string;
  let rows: PersonRow[];

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-disc-'));
    await generateTestGraph(dataDir);
    rows = await readPersons(dataDir);
    t = await testApp({ config: { dataDir } });
    token = await (await createTestOrg(t)).token(['discovery']);
  });
  afterAll(() => t.app.close());

  const count = (body: object) => t.app.inject({ method: 'POST', url: '/v1/discovery/count', headers: bearer(token), payload: body });
  const countOf = async (filters: object[]) => {
    const res = await count({ filters });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().count as number;
  };

  const keysWhere = (pred: (r: PersonRow) => boolean) => rows.filter(pred).map((r) => r.person_key);
  /** Member keys per bucket value (the independent oracle of a grouping). */
  const bucketKeys = (members: PersonRow[], of: (r: PersonRow) => unknown) => {
    const m = new Map<unknown, bigint[]>();
    for (const r of members) {
      if (!m.has(of(r))) m.set(of(r), []);
      m.get(of(r))!.push(r.person_key);
    }
    return m;
  };

  const CASES: [string, object[], (r: PersonRow) => boolean][] = [
    ['=', [{ field: 'state', op: '=', value: 'CA' }], (r) => r.state === 'CA'],
    ['!=', [{ field: 'gender', op: '!=', value: 'M' }], (r) => r.gender !== null && r.gender !== 'M'],
    ['<', [{ field: 'age', op: '<', value: 30 }], (r) => r.age !== null && Number(r.age) < 30],
    ['<=', [{ field: 'age', op: '<=', value: 30 }], (r) => r.age !== null && Number(r.age) <= 30],
    ['>', [{ field: 'age', op: '>', value: 60 }], (r) => r.age !== null && Number(r.age) > 60],
    ['>=', [{ field: 'age', op: '>=', value: 60 }], (r) => r.age !== null && Number(r.age) >= 60],
    ['IN', [{ field: 'state', op: 'IN', value: ['CA', 'TX', 'NY'] }], (r) => ['CA', 'TX', 'NY'].includes(s(r.state)!)],
    ['NOT IN', [{ field: 'state', op: 'NOT IN', value: ['CA', 'TX'] }], (r) => r.state !== null && !['CA', 'TX'].includes(s(r.state)!)],
    ['BETWEEN', [{ field: 'age', op: 'BETWEEN', value: [30, 40] }], (r) => r.age !== null && Number(r.age) >= 30 && Number(r.age) <= 40],
    ['LIKE', [{ field: 'city', op: 'LIKE', value: 'SAN%' }], (r) => s(r.city)?.startsWith('SAN') === true],
    ['ARRAY_CONTAINS', [{ field: 'interests', op: 'ARRAY_CONTAINS', value: 'golf' }], (r) => hasInterest(r, 'golf')],
    [
      'ARRAY_CONTAINS_ANY',
      [{ field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['golf', 'fishing'] }],
      (r) => hasInterest(r, 'golf') || hasInterest(r, 'fishing'),
    ],
    ['IS NULL', [{ field: 'education', op: 'IS NULL' }], (r) => r.education === null],
    ['IS NOT NULL', [{ field: 'education', op: 'IS NOT NULL' }], (r) => r.education !== null],
    [
      'case_insensitive IN',
      [{ field: 'city', op: 'IN', value: ['los angeles', 'Houston'], text_comparison: 'case_insensitive' }],
      (r) => ['LOS ANGELES', 'HOUSTON'].includes(s(r.city)?.toUpperCase() ?? ''),
    ],
    [
      'trim + case_insensitive =',
      [{ field: 'state', op: '=', value: '  ca ', text_comparison: 'case_insensitive', trim_whitespace: true }],
      (r) => r.state === 'CA',
    ],
    ['alias zip -> zip5 LIKE', [{ field: 'zip', op: 'LIKE', value: '9%' }], (r) => s(r.zip5)?.startsWith('9') === true],
    [
      'AND of two',
      [
        { field: 'state', op: 'IN', value: ['CA', 'TX'] },
        { field: 'age', op: 'BETWEEN', value: [25, 54] },
      ],
      (r) => ['CA', 'TX'].includes(s(r.state)!) && Number(r.age) >= 25 && Number(r.age) <= 54,
    ],
  ];

  // Counts are shown through the privacy layer: the independent true count plus the noise of its member set.
  it.each(CASES)('operator %s matches an independent count', async (_name, filters, pred) => {
    const expected = countWhere(rows, pred);
    expect(expected).toBeGreaterThanOrEqual(50);
    const got = await countOf(filters);
    expect(got).toBe(await shownSet({ filters }, keysWhere(pred)));
    expect(Math.abs(got - expected)).toBeLessThanOrEqual(20);
  });

  it('filter_groups: AND binds tighter than OR', async () => {
    const filter_groups = [
      {
        id: 'g1',
        combinator: 'AND',
        filters: [
          { field: 'state', op: '=', value: 'CA' },
          { field: 'age', op: '>=', value: 50 },
        ],
      },
      { id: 'g2', combinator: 'OR', filters: [{ field: 'state', op: '=', value: 'TX' }] },
    ];
    const res = await count({ filter_groups });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().count).toBe(
      await shownSet(
        { filter_groups },
        keysWhere((r) => (r.state === 'CA' && Number(r.age) >= 50) || r.state === 'TX'),
      ),
    );
  });

  it('400 INVALID_FILTER with issues and suggestions, before any warehouse work', async () => {
    const res = await count({
      filters: [
        { field: 'stat', op: '=', value: 'CA' },
        { field: 'age', op: 'LIKE', value: '3%' },
      ],
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('INVALID_FILTER');
    expect(body.issues[0]).toMatchObject({ path: '$.filters[0].field', code: 'UNKNOWN_FILTER_FIELD' });
    expect(body.issues[0].suggestions).toContain('state');
    expect(body.issues[1].code).toBe('UNSUPPORTED_FILTER_OPERATOR');
    expect(body.request_id).toBeTruthy();
  });

  it('400 AMBIGUOUS_INPUT for two input forms, NO_INPUT_SPECIFIED for none', async () => {
    const two = await count({ filters: [{ field: 'state', op: '=', value: 'CA' }], segment_id: 'seg_1' });
    expect(two.statusCode).toBe(400);
    expect(two.json().error).toBe('AMBIGUOUS_INPUT');
    const none = await count({ group_by: 'state' });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toBe('NO_INPUT_SPECIFIED');
  });

  it('saved inputs answer 404 until segments resolve them', async () => {
    const res = await count({ segment_id: 'seg_does_not_exist' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('SEGMENT_NOT_FOUND');
  });

  it('group_by returns groups at or above the floor and counts the suppressed ones', async () => {
    const filters = [{ field: 'age', op: '>=', value: 18 }];
    const res = await count({ filters, group_by: 'state' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const adults = rows.filter((r) => Number(r.age) >= 18);
    const byState = new Map<string | null, number>();
    for (const r of adults) byState.set(s(r.state), (byState.get(s(r.state)) ?? 0) + 1);
    expect(body.count).toBe(
      await shownSet(
        { filters },
        adults.map((r) => r.person_key),
      ),
    );
    const expected = await shownSetGroups(
      { filters },
      'state',
      bucketKeys(adults, (r) => s(r.state)),
    );
    expect(body.groups).toEqual(expected.groups);
    expect(body.suppressed_groups).toBe(expected.suppressed_groups);
    expect(body.suppressed_groups).toBeGreaterThan(0);
    // Every shown group is a state of at least the floor minus the threshold band, within the noise of its true count.
    for (const g of body.groups) {
      expect(g.count).toBeGreaterThanOrEqual(50);
      expect(byState.get(g.group_value)).toBeGreaterThanOrEqual(42);
      expect(Math.abs(g.count - byState.get(g.group_value)!)).toBeLessThanOrEqual(30);
    }
    expect(body.breakdowns).toBeUndefined();
  });

  it('group_by refuses PII, lists and unknown fields', async () => {
    for (const [field, code] of [
      ['first_name', 'FIELD_NOT_GROUPABLE'],
      ['interests', 'FIELD_NOT_GROUPABLE'],
      ['stat', 'UNKNOWN_FILTER_FIELD'],
    ]) {
      const res = await count({ filters: [{ field: 'state', op: '=', value: 'CA' }], group_by: field });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error).toBe('INVALID_GROUP_BY');
      expect(res.json().issues[0].code).toBe(code);
    }
  });

  it('breakdowns by default for raw filters, computed with the total', async () => {
    const filters = [{ field: 'state', op: 'IN', value: ['CA', 'TX', 'NY', 'FL'] }];
    const res = await count({ filters });
    expect(res.statusCode, res.body).toBe(200);
    const { count: total, breakdowns } = res.json();
    const matching = rows.filter((r) => ['CA', 'TX', 'NY', 'FL'].includes(s(r.state)!));
    expect(total).toBe(
      await shownSet(
        { filters },
        matching.map((r) => r.person_key),
      ),
    );
    expect(Object.keys(breakdowns).sort()).toEqual(['age_band', 'gender', 'income_band', 'state']);
    expect(breakdowns.gender).toEqual(
      await shownSetGroups(
        { filters },
        'gender',
        bucketKeys(matching, (r) => s(r.gender)),
      ),
    );
    expect(breakdowns.state.groups.map((g: { group_value: string }) => g.group_value).sort()).toEqual(['CA', 'FL', 'NY', 'TX']);
    for (const b of Object.values(breakdowns) as { groups: { count: number }[] }[])
      for (const g of b.groups) expect(g.count).toBeGreaterThanOrEqual(50);
  });

  it('computes every breakdown bucket exactly, NULL buckets included, and suppresses the small ones', async () => {
    const band = (age: unknown) => {
      if (age === null || age === undefined) return null;
      const a = Number(age);
      return a < 18 ? 'under_18' : a < 25 ? '18_24' : a < 35 ? '25_34' : a < 45 ? '35_44' : a < 55 ? '45_54' : a < 65 ? '55_64' : '65_plus';
    };
    const dims: Record<string, (r: PersonRow) => string | null> = {
      gender: (r) => s(r.gender),
      age_band: (r) => band(r.age),
      income_band: (r) => s(r.income_band),
    };
    const filters = [{ field: 'age', op: '>=', value: 21 }];
    const res = await count({ filters });
    expect(res.statusCode, res.body).toBe(200);
    const { count: total, breakdowns } = res.json();
    const matching = rows.filter((r) => r.age !== null && Number(r.age) >= 21);
    expect(total).toBe(
      await shownSet(
        { filters },
        matching.map((r) => r.person_key),
      ),
    );
    for (const [name, of] of Object.entries(dims)) {
      const truth = new Map<string | null, number>();
      for (const r of matching) truth.set(of(r), (truth.get(of(r)) ?? 0) + 1);
      const got = breakdowns[name] as { groups: { group_value: string | null; count: number }[]; suppressed_groups: number };
      expect(got, name).toEqual(await shownSetGroups({ filters }, name, bucketKeys(matching, of)));
      // A NULL bucket is a bucket like any other.
      if (truth.has(null) && truth.get(null)! >= 50)
        expect(
          got.groups.some((g) => g.group_value === null),
          name,
        ).toBe(true);
      // Below the threshold band every bucket is suppressed, at or above the floor every one is shown.
      for (const [v, n] of truth) {
        if (n < 42)
          expect(
            got.groups.some((g) => g.group_value === v),
            `${name} ${v}`,
          ).toBe(false);
        if (n >= 50)
          expect(
            got.groups.some((g) => g.group_value === v),
            `${name} ${v}`,
          ).toBe(true);
      }
    }
    // State: the ten largest states and `other` for the rest (protected as one bucket).
    const byState = new Map<string | null, number>();
    for (const r of matching) byState.set(s(r.state), (byState.get(s(r.state)) ?? 0) + 1);
    const state = breakdowns.state as { groups: { group_value: string | null; count: number }[] };
    expect(state).toEqual(
      await shownSetGroups(
        { filters },
        'state',
        bucketKeys(matching, (r) => s(r.state)),
        10,
      ),
    );
    expect(state.groups.some((g) => g.group_value === 'other')).toBe(true);
    expect(state.groups.filter((g) => g.group_value !== 'other').length).toBeLessThanOrEqual(10);
  });

  it('a lower-case state is a 400 naming the upper-case value (not an empty count below the floor)', async () => {
    const res = await count({ filters: [{ field: 'state', op: '=', value: 'ca' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'INVALID_FILTER',
      issues: [{ path: '$.filters[0].value', code: 'INVALID_FILTER_VALUE', suggestions: ['CA'] }],
    });
    const folded = await count({ filters: [{ field: 'state', op: '=', value: 'ca', text_comparison: 'case_insensitive' }] });
    expect(folded.statusCode).toBe(200);
  });

  it('422 AGGREGATION_FLOOR_NOT_MET below 50', async () => {
    const res = await count({ filters: [{ field: 'age', op: '>', value: 200 }] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET', privacy_floor: 50 });
    expect(res.json().next_step).toBeTruthy();
  });
});
