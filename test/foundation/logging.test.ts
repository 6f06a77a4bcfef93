import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';

/** Log lines are at the right level with the error code and ids; expected refusals carry no stack trace. */
describe('request logs', () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  let t: TestApp;
  beforeAll(async () => {
    // No graph in this data dir: discovery answers 503 "the graph is loading" (an expected refusal).
    t = await testApp({ logger: { level: 'info', stream } });
  });
  afterAll(() => t.app.close());

  it('logs an expected 503 at warn without a stack, and a 4xx at info with its code', async () => {
    const org = await createTestOrg(t);
    const token = await org.token();
    const loading = await t.app.inject({
      method: 'POST',
      url: '/v1/discovery/count',
      headers: bearer(token),
      payload: { filters: [{ field: 'state', op: '=', value: 'CA' }] },
    });
    expect(loading.statusCode).toBe(503);
    const refused = await t.app.inject({ method: 'GET', url: '/v1/segments/seg_doesNotExist00000000', headers: bearer(token) });
    expect(refused.statusCode).toBe(404);
    const warn = lines.find((l) => l.msg === 'request refused: temporarily unavailable' && l.reqId === loading.headers['x-request-id']);
    expect(warn).toMatchObject({ level: 40, code: 'DATA_RELEASE_UNAVAILABLE', status: 503, org_id: org.orgId });
    expect(warn).not.toHaveProperty('err');
    const info = lines.find((l) => l.msg === 'request refused' && l.reqId === refused.headers['x-request-id']);
    expect(info).toMatchObject({ level: 30, code: 'SEGMENT_NOT_FOUND', status: 404, route: '/v1/segments/:id' });
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });
});
