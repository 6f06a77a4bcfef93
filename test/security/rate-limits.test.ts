import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { bearer, createTestOrg, type TestApp } from '../helpers/app.ts';
import { twoInstances } from '../helpers/two-instances.ts';

/**
 * Sliding-window rate limits (spec section 8) and the key-for-bearer exchange limits, both shared by
 * two app instances on one database (two API processes).
 */
describe('sliding window at a minute boundary', () => {
  const clock = new ManualClock('2031-01-07T09:00:59Z');
  const apps = twoInstances(clock);

  it('a burst on each side of a boundary admits about the limit, not twice it', async () => {
    const { a, b } = apps;
    const org = await createTestOrg(a, { tier: 'pilot' }); // 100 per minute
    const token = await org.token(['account']);
    const fire = (t: TestApp) => t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) });
    const first = await Promise.all(Array.from({ length: 110 }, (_, i) => fire(i % 2 ? a : b)));
    const firstOk = first.filter((r) => r.statusCode === 200).length;
    expect(firstOk).toBeGreaterThanOrEqual(92);
    expect(firstOk).toBeLessThanOrEqual(100);
    clock.advance(2_000); // 09:01:01, two seconds later, a new fixed minute
    const second = await Promise.all(Array.from({ length: 110 }, (_, i) => fire(i % 2 ? a : b)));
    const secondOk = second.filter((r) => r.statusCode === 200).length;
    // 1/60 of the previous minute has slid out: at most 100 - ceil(firstOk * 59/60) more.
    expect(secondOk).toBeLessThanOrEqual(100 - Math.ceil((firstOk * 59) / 60));
    expect(firstOk + secondOk).toBeLessThanOrEqual(102);
    const refused = second.find((r) => r.statusCode === 429)!;
    expect(refused.json()).toMatchObject({ error: 'rate_limit_exceeded', request_id: expect.any(String) });
    expect(refused.json().retry_after_seconds).toBeGreaterThanOrEqual(1);
    // Half a minute on, half of the first burst has slid out and requests are admitted again.
    clock.advance(30_000);
    expect((await fire(a)).statusCode).toBe(200);
  });
});

describe('token exchange limits', () => {
  const clock = new ManualClock('2031-02-03T04:05:01Z');
  const limits = { exchangePerKeyPerMinute: 5, exchangePerAddressPerMinute: 12, warehouseStatementTimeoutMs: 30_000 };
  const apps = twoInstances(clock, { limits });
  const exchange = (t: TestApp, apiKey: string, ip = '203.0.113.7') =>
    t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { api_key: apiKey }, remoteAddress: ip });

  it('limits exchanges per API key across processes with a 429 in the envelope', async () => {
    const { a, b } = apps;
    const org = await createTestOrg(a);
    const key = await org.rawKey(['account']);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await exchange(i % 2 ? a : b, key, `198.51.100.${i + 1}`)).statusCode);
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    const refused = await exchange(a, key, '198.51.100.99');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'rate_limit_exceeded', request_id: expect.any(String) });
    expect(refused.json().message).toContain('per API key');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another key is not affected.
    expect((await exchange(b, await org.rawKey(['account']), '198.51.100.100')).statusCode).toBe(200);
  });

  it('limits attempts per client address, including attempts with invalid keys', async () => {
    const { a, b } = apps;
    clock.advance(120_000);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await exchange(i % 2 ? a : b, `ads_live_guess${i}`, '192.0.2.50')).statusCode);
    expect(statuses.filter((s) => s === 401).length).toBe(12);
    expect(statuses.filter((s) => s === 429).length).toBe(3);
    const org = await createTestOrg(a);
    // Even a valid key is refused from that address until the window slides; another address is served.
    expect((await exchange(a, await org.rawKey(['account']), '192.0.2.50')).statusCode).toBe(429);
    expect((await exchange(a, await org.rawKey(['account']), '192.0.2.51')).statusCode).toBe(200);
  });
});
