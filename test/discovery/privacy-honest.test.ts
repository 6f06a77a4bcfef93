/**
 * Issue #32, through the real app: honest use is unchanged by the privacy layer by member set (decision 052)
 * (varied marketer questions with true counts >= 50: none refused, none off by more than 10%, the same
 * question the same answer), and the record of questions flags and, when configured, refuses a run of
 * rewordings of one set (429 with Retry-After, counted in /metrics, kept in the control plane).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { privacyGraph } from '../helpers/privacy-attacks.ts';
import { testStores } from '../helpers/stores.ts';
import { readPersons, type PersonRow } from './graph.ts';

const s = (v: unknown) => (v === null || v === undefined ? null : String(v));
const c = (field: string, op: string, value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) });
type Pred = (r: PersonRow) => boolean;

describe('privacy by member set through the app (issue #32)', () => {
  let t: TestApp;
  let token: string;
  let orgId: string;
  let rows: PersonRow[];

  beforeAll(async () => {
    const dataDir = await privacyGraph();
    rows = await readPersons(dataDir);
    t = await testApp({ config: { dataDir } });
    const org = await createTestOrg(t);
    orgId = org.orgId;
    token = await org.token(['discovery', 'creator']);
  }, 300_000);
  afterAll(() => t?.app.close());

  const post = (url: string, body: object, tok = token, app = t) =>
    app.app.inject({ method: 'POST', url, headers: bearer(tok), payload: body });
  const tally = (pred: Pred, of: (r: PersonRow) => unknown) => {
    const m = new Map<string | null, number>();
    for (const r of rows) if (pred(r)) m.set(s(of(r)), (m.get(s(of(r))) ?? 0) + 1);
    return m;
  };
  const top = (m: Map<string | null, number>, n: number) =>
    [...m]
      .filter(([k]) => k !== null)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k]) => k!);

  it('>= 30 varied marketer questions with true counts >= 50: 0 refused, none off by more than 10%, same question same answer', async () => {
    const states = top(
      tally(
        () => true,
        (r) => r.state,
      ),
      4,
    );
    const cities = top(
      tally(
        () => true,
        (r) => r.city,
      ),
      4,
    );
    const age =
      (lo: number, hi: number): Pred =>
      (r) =>
        r.age !== null && Number(r.age) >= lo && Number(r.age) <= hi;
    /** [request, truth of the total, group_by truth per bucket] */
    const asks: [string, object, number, Map<string | null, number> | null][] = [];
    for (const st of states) {
      for (const [lo, hi] of [
        [18, 34],
        [35, 54],
        [55, 120],
      ] as const) {
        const pred: Pred = (r) => s(r.state) === st && age(lo, hi)(r);
        asks.push([
          '/v1/discovery/count',
          { filters: [c('state', '=', st), c('age', 'BETWEEN', [lo, hi])] },
          tally(pred, () => 1).get('1') ?? 0,
          null,
        ]);
      }
    }
    for (const city of cities) {
      const pred: Pred = (r) => s(r.city) === city;
      asks.push([
        '/v1/discovery/count',
        { filters: [c('city', '=', city)], group_by: 'income_band' },
        tally(pred, () => 1).get('1') ?? 0,
        tally(pred, (r) => r.income_band),
      ]);
    }
    asks.push([
      '/v1/discovery/count',
      { filters: [c('age', '>=', 18)], group_by: 'state' },
      tally(age(18, 200), () => 1).get('1')!,
      tally(age(18, 200), (r) => r.state),
    ]);
    const women: Pred = (r) => r.gender === 'F';
    asks.push([
      '/v1/discovery/count',
      { filters: [c('gender', '=', 'F')], group_by: 'education' },
      tally(women, () => 1).get('1')!,
      tally(women, (r) => r.education),
    ]);

    // Saved segments and their unions and intersections.
    const segment = async (filters: object[]) => {
      const res = await post('/v1/segments', { name: 'honest', create_audience: false, filters });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().segment_id as string;
    };
    const bySt = await Promise.all(states.slice(0, 3).map((st) => segment([c('state', '=', st)])));
    const older = await segment([c('age', '>=', 50)]);
    const inSt =
      (i: number): Pred =>
      (r) =>
        s(r.state) === states[i];
    const compositions: [string[], 'union' | 'intersection', Pred][] = [
      [[bySt[0]!, bySt[1]!], 'union', (r) => inSt(0)(r) || inSt(1)(r)],
      [[bySt[1]!, bySt[2]!], 'union', (r) => inSt(1)(r) || inSt(2)(r)],
      [[bySt[0]!, bySt[1]!, bySt[2]!], 'union', (r) => inSt(0)(r) || inSt(1)(r) || inSt(2)(r)],
      [[bySt[0]!, older], 'intersection', (r) => inSt(0)(r) && age(50, 200)(r)],
      [[bySt[1]!, older], 'intersection', (r) => inSt(1)(r) && age(50, 200)(r)],
      [[bySt[2]!, older], 'intersection', (r) => inSt(2)(r) && age(50, 200)(r)],
    ];
    for (const [segment_ids, set_logic, pred] of compositions)
      asks.push([
        '/v1/discovery/count',
        { segment_ids, set_logic, group_by: 'gender' },
        tally(pred, () => 1).get('1') ?? 0,
        tally(pred, (r) => r.gender),
      ]);

    let questions = 0;
    let refused = 0;
    const offBy: string[] = [];
    const firstAnswers: string[] = [];
    for (const [url, body, truth, buckets] of asks) {
      expect(truth, JSON.stringify(body)).toBeGreaterThanOrEqual(50);
      const res = await post(url, body);
      if (res.statusCode !== 200) {
        refused += 1;
        continue;
      }
      firstAnswers.push(res.body.replace(/"estimated_bytes_scanned":\d+,?/, ''));
      const got = res.json();
      questions += 1;
      if (Math.abs(got.count - truth) > 0.1 * truth) offBy.push(`${JSON.stringify(body)}: ${got.count} vs ${truth}`);
      for (const [v, n] of buckets ?? []) {
        if (n < 50) continue;
        questions += 1;
        const g = (got.groups as { group_value: unknown; count: number }[]).find((x) => s(x.group_value) === v);
        if (!g) refused += 1;
        else if (Math.abs(g.count - n) > 0.1 * n) offBy.push(`${JSON.stringify(body)} ${v}: ${g.count} vs ${n}`);
      }
    }
    expect(questions).toBeGreaterThanOrEqual(30);
    expect(refused).toBe(0);
    expect(offBy).toEqual([]);
    // The same questions again: the same answers.
    for (const [i, [url, body]] of asks.entries())
      expect((await post(url, body)).body.replace(/"estimated_bytes_scanned":\d+,?/, '')).toBe(firstAnswers[i]);
    // None of this was a run of rewordings.
    const { rows: flagged } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM privacy_questions WHERE org_id = ${orgId} AND flagged`.execute((await testStores()).database.db);
    expect(Number(flagged[0]!.n)).toBe(0);
  }, 300_000);

  it('a run of rewordings of one member set is flagged, counted in /metrics and, configured so, refused with 429 and Retry-After', async () => {
    const strict = await testApp({
      config: {
        dataDir: t.config.dataDir,
        discovery: { ...t.config.discovery, questionRuns: { windowSeconds: 600, flagAfter: 5, action: 'refuse', delayMs: 0 } },
      },
    });
    try {
      const org = await createTestOrg(strict);
      const tok = await org.token(['discovery']);
      const p = [c('state', '=', 'CA'), c('age', '>=', 30)];
      const statuses: number[] = [];
      let last = null as null | Awaited<ReturnType<typeof post>>;
      for (let k = 0; k < 6; k++) {
        // P OR (P AND age >= 31 + k): six wordings, one set.
        last = await post(
          '/v1/discovery/count',
          {
            filter_groups: [
              { id: 'a', combinator: 'AND', filters: p },
              { id: 'b', combinator: 'OR', filters: [...p, c('age', '>=', 31 + k)] },
            ],
          },
          tok,
          strict,
        );
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      expect(last!.json().error).toBe('rate_limit_exceeded');
      expect(last!.headers['retry-after']).toBe('600');
      // Asking the same wording again is not a new wording; another set is not part of the run.
      expect((await post('/v1/discovery/count', { filters: [c('state', '=', 'TX')] }, tok, strict)).statusCode).toBe(200);
      const metrics = await strict.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/ads_privacy_flagged_questions_total\{action="refuse"\} [1-9]/);
      const { rows: kept } = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM privacy_questions WHERE org_id = ${org.orgId} AND flagged`.execute((await testStores()).database.db);
      expect(Number(kept[0]!.n)).toBe(2);
    } finally {
      await strict.app.close();
    }
  });
});
