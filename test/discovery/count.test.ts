import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { CATALOG_FIELDS } from '../../src/modules/catalog/fields.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
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
    // The differencing guard would refuse operator variants that differ by < 50; it has its own test.
    const discovery = { ...loadConfig({}).discovery, differencingWindowSeconds: 0 };
    t = await testApp({ config: { dataDir, discovery } });
    token = await (await createTestOrg(t)).token(['discovery']);
  });
  afterAll(() => t.app.close());

  const count = (body: object) => t.app.inject({ method: 'POST', url: '/v1/discovery/count', headers: bearer(token), payload: body });
  const countOf = async (filters: object[]) => {
    const res = await count({ filters });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().count as number;
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
    ['ARRAY_CONTAINS_ANY', [{ field: 'interests', op: 'ARRAY_CONTAINS_ANY', value: ['golf', 'fishing'] }], (r) => hasInterest(r, 'golf') || hasInterest(r, 'fishing')],
    ['IS NULL', [{ field: 'education', op: 'IS NULL' }], (r) => r.education === null],
    ['IS NOT NULL', [{ field: 'education', op: 'IS NOT NULL' }], (r) => r.education !== null],
    ['case_insensitive IN', [{ field: 'city', op: 'IN', value: ['los angeles', 'Houston'], text_comparison: 'case_insensitive' }],
      (r) => ['LOS ANGELES', 'HOUSTON'].includes(s(r.city)?.toUpperCase() ?? '')],
    ['trim + case_insensitive =', [{ field: 'state', op: '=', value: '  ca ', text_comparison: 'case_insensitive', trim_whitespace: true }], (r) => r.state === 'CA'],
    ['alias zip -> zip5 LIKE', [{ field: 'zip', op: 'LIKE', value: '9%' }], (r) => s(r.zip5)?.startsWith('9') === true],
    ['AND of two', [{ field: 'state', op: 'IN', value: ['CA', 'TX'] }, { field: 'age', op: 'BETWEEN', value: [25, 54] }],
      (r) => ['CA', 'TX'].includes(s(r.state)!) && Number(r.age) >= 25 && Number(r.age) <= 54],
  ];

  it.each(CASES)('operator %s matches an independent count', async (_name, filters, pred) => {
    const expected = countWhere(rows, pred);
    expect(expected).toBeGreaterThanOrEqual(50);
    expect(await countOf(filters)).toBe(expected);
  });

  it('filter_groups: AND binds tighter than OR', async () => {
    const res = await count({
      filter_groups: [
        { id: 'g1', combinator: 'AND', filters: [{ field: 'state', op: '=', value: 'CA' }, { field: 'age', op: '>=', value: 50 }] },
        { id: 'g2', combinator: 'OR', filters: [{ field: 'state', op: '=', value: 'TX' }] },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().count).toBe(countWhere(rows, (r) => (r.state === 'CA' && Number(r.age) >= 50) || r.state === 'TX'));
  });

  it('400 INVALID_FILTER with issues and suggestions, before any warehouse work', async () => {
    const res = await count({ filters: [{ field: 'stat', op: '=', value: 'CA' }, { field: 'age', op: 'LIKE', value: '3%' }] });
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
    const res = await count({ filters: [{ field: 'age', op: '>=', value: 18 }], group_by: 'state' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const adults = rows.filter((r) => Number(r.age) >= 18);
    const byState = new Map<string | null, number>();
    for (const r of adults) byState.set(s(r.state), (byState.get(s(r.state)) ?? 0) + 1);
    const big = [...byState].filter(([, n]) => n >= 50);
    expect(body.count).toBe(adults.length);
    expect(body.groups).toHaveLength(big.length);
    for (const g of body.groups) expect(g.count).toBe(byState.get(g.group_value));
    expect(body.suppressed_groups).toBe(byState.size - big.length);
    expect(body.suppressed_groups).toBeGreaterThan(0);
    expect(body.breakdowns).toBeUndefined();
  });

  it('group_by refuses PII, lists and unknown fields', async () => {
    for (const [field, code] of [['first_name', 'FIELD_NOT_GROUPABLE'], ['interests', 'FIELD_NOT_GROUPABLE'], ['stat', 'UNKNOWN_FILTER_FIELD']]) {
      const res = await count({ filters: [{ field: 'state', op: '=', value: 'CA' }], group_by: field });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error).toBe('INVALID_GROUP_BY');
      expect(res.json().issues[0].code).toBe(code);
    }
  });

  it('breakdowns by default for raw filters, computed with the total', async () => {
    const res = await count({ filters: [{ field: 'state', op: 'IN', value: ['CA', 'TX', 'NY', 'FL'] }] });
    expect(res.statusCode, res.body).toBe(200);
    const { count: total, breakdowns } = res.json();
    const matching = rows.filter((r) => ['CA', 'TX', 'NY', 'FL'].includes(s(r.state)!));
    expect(total).toBe(matching.length);
    expect(Object.keys(breakdowns).sort()).toEqual(['age_band', 'gender', 'income_band', 'state']);
    const female = matching.filter((r) => r.gender === 'F').length;
    expect(breakdowns.gender.groups.find((g: { group_value: string }) => g.group_value === 'F').count).toBe(female);
    expect(breakdowns.state.groups.map((g: { group_value: string }) => g.group_value).sort()).toEqual(['CA', 'FL', 'NY', 'TX']);
    for (const b of Object.values(breakdowns) as { groups: { count: number }[] }[]) for (const g of b.groups) expect(g.count).toBeGreaterThanOrEqual(50);
  });

  it('computes every breakdown bucket exactly, NULL buckets included, and suppresses the small ones', async () => {
    const band = (age: unknown) => {
      if (age === null || age === undefined) return null;
      const a = Number(age);
      return a < 18 ? 'under_18' : a < 25 ? '18_24' : a < 35 ? '25_34' : a < 45 ? '35_44' : a < 55 ? '45_54' : a < 65 ? '55_64' : '65_plus';
    };
    const dims: Record<string, (r: PersonRow) => string | null> = {
      gender: (r) => s(r.gender), age_band: (r) => band(r.age), income_band: (r) => s(r.income_band),
    };
    const res = await count({ filters: [{ field: 'age', op: '>=', value: 21 }] });
    expect(res.statusCode, res.body).toBe(200);
    const { count: total, breakdowns } = res.json();
    const matching = rows.filter((r) => r.age !== null && Number(r.age) >= 21);
    expect(total).toBe(matching.length);
    for (const [name, of] of Object.entries(dims)) {
      const expected = new Map<string | null, number>();
      for (const r of matching) expected.set(of(r), (expected.get(of(r)) ?? 0) + 1);
      const kept = [...expected].filter(([, n]) => n >= 50);
      const got = breakdowns[name] as { groups: { group_value: string | null; count: number }[]; suppressed_groups: number };
      expect(new Map(got.groups.map((g) => [g.group_value, g.count])), name).toEqual(new Map(kept));
      expect(got.suppressed_groups, name).toBe(expected.size - kept.length);
    }
    // State: the ten largest states (each at or above the floor) and `other` for the rest.
    const byState = new Map<string | null, number>();
    for (const r of matching) byState.set(s(r.state), (byState.get(s(r.state)) ?? 0) + 1);
    const top = [...byState].sort((a, b) => b[1] - a[1]).slice(0, 10).filter(([, n]) => n >= 50);
    const state = breakdowns.state as { groups: { group_value: string | null; count: number }[] };
    for (const [v, n] of top) expect(state.groups.find((g) => g.group_value === v)?.count).toBe(n);
    const rest = matching.length - [...byState].sort((a, b) => b[1] - a[1]).slice(0, 10).reduce((a, [, n]) => a + n, 0);
    if (rest >= 50) expect(state.groups.find((g) => g.group_value === 'other')?.count).toBe(rest);
  });

  it('422 AGGREGATION_FLOOR_NOT_MET below 50', async () => {
    const res = await count({ filters: [{ field: 'age', op: '>', value: 200 }] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET', privacy_floor: 50 });
    expect(res.json().next_step).toBeTruthy();
  });
});
