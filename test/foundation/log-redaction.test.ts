import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { testGraph } from '../segments/graph.ts';

/**
 * Issue 31, point 12: a signed upload URL's signature is its only credential, and Fastify logs every
 * request's URL. The log output of real requests carries no signature, token, code or API key; every
 * line is still JSON.
 */
describe('credentials in log lines', () => {
  let text = '';
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ config: { dataDir: (await testGraph()).dataDir }, logger: { level: 'info', stream } });
  }, 300_000);
  afterAll(() => t.app.close());

  it('a PUT to a signed upload URL is logged without its signature', async () => {
    const org = await createTestOrg(t);
    const created = await t.app.inject({ method: 'POST', url: '/v1/match/file', headers: bearer(await org.token()) });
    expect(created.statusCode, created.body).toBe(201);
    const uploadUrl = new URL(created.json().upload_url as string);
    const signature = uploadUrl.searchParams.get('signature')!;
    expect(signature.length).toBeGreaterThan(10);
    const put = await t.app.inject({
      method: 'PUT',
      url: uploadUrl.pathname + uploadUrl.search,
      headers: { 'content-type': 'text/csv' },
      payload: 'email\nann@example.com\n',
    });
    expect(put.statusCode, put.body).toBe(200);
    const logged = lines.filter((l) => l.reqId === put.headers['x-request-id']);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.find((l) => l.req)?.req.url).toMatch(/[?&]signature=\[REDACTED\]/);
    expect(text).not.toContain(signature);
    expect(text).not.toContain(encodeURIComponent(signature));
  });

  it('tokens, codes and keys in URLs, and bearers or API keys in messages, are redacted on every line', async () => {
    const org = await createTestOrg(t);
    const key = await org.rawKey();
    const token = await org.token();
    // A refused download URL (bad signature) and an authorization request carrying a code and a token in its query.
    await t.app.inject({
      method: 'GET',
      url: `/v1/downloads/${org.orgId}/del_x/part-00000.csv?expires=4102444800&signature=sEcReTsIgNaTuRe0123`,
    });
    await t.app.inject({
      method: 'GET',
      url: '/v1/segments?limit=1&access_token=aCcEsStOkEn0123&code=cOdE0123&X-Amz-Signature=aMzSiG0123',
      headers: bearer(token),
    });
    t.app.log.warn({ authorization: `Bearer ${token}`, api_key: key }, `retrying with Authorization: Bearer ${token} and key ${key}`);
    for (const secret of ['sEcReTsIgNaTuRe0123', 'aCcEsStOkEn0123', 'cOdE0123', 'aMzSiG0123', token, key, key.slice('ads_live_'.length)]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(text).toContain('[REDACTED]');
  });
});
