import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { checkTargetUrl, isPrivateAddress, targetPolicy } from '../../src/modules/webhooks/url-policy.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';

/** Webhook configuration endpoints: secrets shown once, URL policy, scopes and isolation (spec 4.9). No worker runs here. */
describe('webhook settings and subscriptions', () => {
  let dev: TestApp;
  let prod: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    dev = await testApp();
    prod = await testApp({ config: { production: true, outbound: { allowPrivateTargets: false } } });
    org = await createTestOrg(dev);
  });
  afterAll(async () => {
    await dev.app.close();
    await prod.app.close();
  });

  const call = async (t: TestApp, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, token: string, payload?: object) =>
    t.app.inject({ method, url, headers: bearer(token), payload });

  it('shows the organization secret once per PUT; GET never returns it; the URL can be cleared', async () => {
    const token = await org.token(['account']);
    expect((await call(dev, 'GET', '/v1/settings/webhook', token)).json()).toMatchObject({ url: null, status: 'unset', secret_hint: null });
    const put = await call(dev, 'PUT', '/v1/settings/webhook', token, { url: 'https://hooks.example.com/ads' });
    expect(put.statusCode).toBe(200);
    const { secret } = put.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    const get = await call(dev, 'GET', '/v1/settings/webhook', token);
    expect(get.json()).toMatchObject({ url: 'https://hooks.example.com/ads', status: 'active' });
    expect(get.body).not.toContain(secret);
    expect(get.json().secret).toBeUndefined();
    // Each PUT with a URL rotates the secret.
    const again = (await call(dev, 'PUT', '/v1/settings/webhook', token, { url: 'https://hooks.example.com/v2' })).json();
    expect(again.secret).not.toBe(secret);
    const cleared = await call(dev, 'PUT', '/v1/settings/webhook', token, { url: null });
    expect(cleared.json()).toMatchObject({ url: null, status: 'unset' });
    expect(cleared.json().secret).toBeUndefined();
    expect(cleared.json().secret_hint).toMatch(/^whsec_/);
    expect((await call(dev, 'DELETE', '/v1/settings/webhook', token)).json()).toMatchObject({ url: null });
  });

  it('creates, lists, gets and deletes subscriptions; the secret appears only in the create response', async () => {
    const token = await org.token(['account']);
    const created = await call(dev, 'POST', '/v1/webhook-subscriptions', token, {
      target_url: 'https://hooks.example.com/sub',
      events: ['segment.ready', 'delivery.failed'],
    });
    expect(created.statusCode).toBe(201);
    const sub = created.json();
    expect(sub).toMatchObject({
      status: 'active',
      events: ['segment.ready', 'delivery.failed'],
      target_url: 'https://hooks.example.com/sub',
    });
    expect(sub.secret).toMatch(/^whsec_/);
    const list = await call(dev, 'GET', '/v1/webhook-subscriptions', token);
    expect(list.body).not.toContain(sub.secret);
    expect(list.json().subscriptions.map((s: { id: string }) => s.id)).toContain(sub.id);
    const got = await call(dev, 'GET', `/v1/webhook-subscriptions/${sub.id}`, token);
    expect(got.body).not.toContain(sub.secret);
    expect((await call(dev, 'DELETE', `/v1/webhook-subscriptions/${sub.id}`, token)).json()).toMatchObject({ status: 'deleted' });
    expect((await call(dev, 'GET', `/v1/webhook-subscriptions/${sub.id}`, token)).statusCode).toBe(404);
    const bad = await call(dev, 'POST', '/v1/webhook-subscriptions', token, {
      target_url: 'https://hooks.example.com/x',
      events: ['segment.exploded'],
    });
    expect(bad.statusCode).toBe(400);
  });

  it('with private targets allowed (the test setting) http on loopback is accepted; without it every mode refuses http and private addresses with INVALID_WEBHOOK_URL', async () => {
    const devToken = await org.token(['account']);
    expect((await call(dev, 'PUT', '/v1/settings/webhook', devToken, { url: 'http://127.0.0.1:9999/hook' })).statusCode).toBe(200);
    expect((await call(dev, 'PUT', '/v1/settings/webhook', devToken, { url: 'http://localhost:9999/hook' })).statusCode).toBe(200);
    // Even in development, plain http to a public host is refused.
    expect((await call(dev, 'PUT', '/v1/settings/webhook', devToken, { url: 'http://hooks.example.com/hook' })).json().error).toBe(
      'INVALID_WEBHOOK_URL',
    );

    const p = await createTestOrg(prod);
    const token = await p.token(['account']);
    for (const url of [
      'http://127.0.0.1:9999/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/x',
      'https://192.168.1.1/x',
      'https://172.20.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[fd00::1]/x',
      'http://hooks.example.com/x',
      'ftp://hooks.example.com/x',
      'not a url',
      'https://user:pw@hooks.example.com/x',
    ]) {
      const res = await call(prod, 'PUT', '/v1/settings/webhook', token, { url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ error: 'INVALID_WEBHOOK_URL' });
      expect(res.json().next_step).toBeTruthy();
      const sub = await call(prod, 'POST', '/v1/webhook-subscriptions', token, { target_url: url, events: ['segment.ready'] });
      expect(sub.statusCode, url).toBe(400);
    }
    expect((await call(prod, 'PUT', '/v1/settings/webhook', token, { url: 'https://hooks.example.com/ads' })).statusCode).toBe(200);
    expect((await call(prod, 'PUT', '/v1/settings/webhook', token, { url: 'https://93.184.216.34/ads' })).statusCode).toBe(200);
  });

  it('private targets are refused in every mode unless OUTBOUND_ALLOW_PRIVATE_TARGETS (or the older WEBHOOK_ name) allows them', () => {
    const prodAllow = loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(() => checkTargetUrl('http://127.0.0.1:8080/x', targetPolicy(prodAllow))).not.toThrow();
    expect(() =>
      checkTargetUrl('http://127.0.0.1:8080/x', targetPolicy(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }))),
    ).not.toThrow();
    const devDefault = loadConfig({});
    expect(() => checkTargetUrl('http://127.0.0.1:8080/x', targetPolicy(devDefault))).toThrow(/private/);
    // Link-local and metadata addresses stay refused even when private targets are allowed.
    expect(() => checkTargetUrl('https://169.254.169.254/latest', targetPolicy(prodAllow))).toThrow(/metadata/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/true or false/);
    // The same parser serves MATCH_WARMUP (on unless false).
    expect([loadConfig({}).matchWarmup, loadConfig({ MATCH_WARMUP: 'false' }).matchWarmup]).toEqual([true, false]);
    expect(() => loadConfig({ MATCH_WARMUP: 'off' })).toThrow(/MATCH_WARMUP must be true or false/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,x' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5, 2' }).webhooks.retryScheduleSeconds).toEqual([0.5, 2]);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('100.64.0.1')).toBe(true);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
  });

  it('requires the account scope (403 SCOPE_REQUIRED) and isolates organizations (404)', async () => {
    const weak = await org.token(['discovery', 'creator']);
    for (const [method, url, payload] of [
      ['GET', '/v1/settings/webhook', undefined],
      ['PUT', '/v1/settings/webhook', { url: 'https://hooks.example.com/a' }],
      ['POST', '/v1/webhook-subscriptions', { target_url: 'https://hooks.example.com/a', events: ['segment.ready'] }],
      ['GET', '/v1/webhook-subscriptions', undefined],
      ['GET', '/v1/events/evt_x/deliveries', undefined],
      ['POST', '/v1/webhook-deliveries/whd_x/redeliver', undefined],
    ] as const) {
      const res = await call(dev, method, url, weak, payload);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error).toBe('SCOPE_REQUIRED');
    }
    const mine = (
      await call(dev, 'POST', '/v1/webhook-subscriptions', await org.token(['account']), {
        target_url: 'https://hooks.example.com/m',
        events: ['segment.ready'],
      })
    ).json();
    const other = await createTestOrg(dev);
    const otherToken = await other.token(['account']);
    expect((await call(dev, 'GET', `/v1/webhook-subscriptions/${mine.id}`, otherToken)).statusCode).toBe(404);
    expect((await call(dev, 'DELETE', `/v1/webhook-subscriptions/${mine.id}`, otherToken)).statusCode).toBe(404);
    expect((await call(dev, 'GET', '/v1/webhook-subscriptions', otherToken)).json().subscriptions).toEqual([]);
    expect((await call(dev, 'GET', '/v1/settings/webhook', otherToken)).json()).toMatchObject({ url: null, status: 'unset' });
  });

  it('documents the four events in the OpenAPI webhooks section', async () => {
    const doc = (await dev.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'delivery.completed',
      'delivery.failed',
      'integration_run.completed',
      'integration_run.failed',
      'segment.failed',
      'segment.ready',
    ]);
    const schema = doc.webhooks['delivery.completed'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.data.properties).toHaveProperty('download_urls_expire_at');
    expect(doc.paths['/v1/webhook-subscriptions'].post.tags).toEqual(['Webhooks']);
  });
});
