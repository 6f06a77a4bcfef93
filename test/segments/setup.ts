import { ManualClock } from '../../src/lib/clock.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { testGraph, type TestGraph } from './graph.ts';

export interface SegTest {
  t: TestApp;
  g: TestGraph;
  clock: ManualClock;
  org: TestOrg;
  token: string;
  call(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  segment(body: Record<string, unknown>, token?: string): Promise<any>;
}

export const cond = (field: string, op: string, value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) });

/** `dataDir`: a copy of the test graph's folder the test may publish releases into (default: the shared graph). */
export async function setup(start = '2026-03-01T12:00:00Z', dataDir?: string): Promise<SegTest> {
  const clock = new ManualClock(start);
  const g = await testGraph();
  // The app's own wiring (warehouse, catalog, discovery) runs over the generated release.
  const t = await testApp({ clock, config: { dataDir: dataDir ?? g.dataDir } });
  const org = await createTestOrg(t);
  const token = await org.token();
  // Tests move the clock by days: re-mint the owner's bearer when it would have expired.
  let current = { token, at: clock.now().getTime() };
  const fresh = async () => {
    if (Math.abs(clock.now().getTime() - current.at) > 30 * 60_000) current = { token: await org.token(), at: clock.now().getTime() };
    return current.token;
  };
  const call = async (method: string, url: string, body?: unknown, given?: string) => {
    const tok = given ?? (await fresh());
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: bearer(tok),
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };
  return {
    t,
    g,
    clock,
    org,
    token,
    call,
    async segment(body, tok) {
      const res = await call('POST', '/v1/segments', { name: 'seg', ...body }, tok);
      if (res.status !== 201) throw new Error(`segment create ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
  };
}
