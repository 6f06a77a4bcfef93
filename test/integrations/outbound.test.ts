/**
 * Provider calls go through the outbound-target policy: with private targets refused (the production
 * default), a HubSpot stand-in on loopback cannot be reached and the connection is not made.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { hubspotSettings, startHubSpot, type HubSpotStandIn } from '../helpers/hubspot-server.ts';

let t: TestApp;
let hs: HubSpotStandIn;
beforeAll(async () => {
  hs = await startHubSpot();
  t = await testApp({ config: { integrations: hubspotSettings(hs), outbound: { allowPrivateTargets: false } } });
});
afterAll(async () => {
  await t?.app.close();
  await hs?.close();
});

it('refuses to dial a loopback provider when private targets are not allowed', async () => {
  const org = await createTestOrg(t);
  const token = await org.token();
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  };
  const start = await call('POST', '/v1/connections/hubspot/authorize');
  expect(start.status).toBe(200);
  const res = await call('POST', '/v1/connections/hubspot', { code: hs.approve(hs.addHub('x.hubspot.com', [])), state: start.body.state });
  expect(res.status).toBe(502);
  expect(res.body.error).toBe('PROVIDER_UNAVAILABLE');
  expect(res.body.message).toMatch(/not allowed/);
  expect(hs.log).toEqual([]);
  expect((await call('GET', '/v1/connections')).body).toEqual({ connections: [] });
});
