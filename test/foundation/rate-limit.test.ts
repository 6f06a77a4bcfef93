import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { bearer, createTestOrg, type TestApp } from '../helpers/app.ts';
import { twoInstances } from '../helpers/two-instances.ts';

/**
 * Spec section 8: per-organization requests per minute by tier, 429 rate_limit_exceeded with
 * retry_after_seconds. Two app instances on one database stand for two API processes.
 */
describe('rate limit across two API instances', () => {
  const clock = new ManualClock('2026-05-05T10:00:10Z');
  const apps = twoInstances(clock);

  it('admits at most the tier limit per minute in total, within a small tolerance, and says when to retry', async () => {
    const { a, b } = apps;
    const org = await createTestOrg(a, { tier: 'pilot' });
    const token = await org.token(['account']);
    const fire = (t: TestApp) => t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) });
    const responses = await Promise.all(Array.from({ length: 160 }, (_, i) => fire(i % 2 ? a : b)));
    const ok = responses.filter((r) => r.statusCode === 200).length;
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(ok).toBeLessThanOrEqual(100);
    expect(ok).toBeGreaterThanOrEqual(92); // tolerance: unspent leases of the other process
    expect(ok + limited.length).toBe(160);
    const body = limited[0]!.json();
    expect(body).toMatchObject({ error: 'rate_limit_exceeded' });
    expect(body.message).toContain('100 requests per minute for tier pilot');
    // Sliding window: the first admission after a full minute is just past 10:01:00 (51 s from 10:00:10).
    // (52 when another process's over-asked lease was not yet given back when this one looked).
    expect([51, 52]).toContain(body.retry_after_seconds);
    expect(limited[0]!.headers['retry-after']).toBe(String(body.retry_after_seconds));

    clock.advance(60_000); // 10:01:10: a sixth of the previous minute has slid out of the window
    expect((await fire(a)).statusCode).toBe(200);
    expect((await fire(b)).statusCode).toBe(200);
  });

  it('counts each organization separately', async () => {
    const { a, b } = apps;
    const busy = await createTestOrg(a, { tier: 'paygo' });
    const quiet = await createTestOrg(a, { tier: 'paygo' });
    const busyToken = await busy.token(['account']);
    const results = await Promise.all(
      Array.from({ length: 70 }, () => a.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(busyToken) })),
    );
    expect(results.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(10);
    const other = await b.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(await quiet.token(['account'])) });
    expect(other.statusCode).toBe(200);
  });

  it('does not limit unauthenticated health checks', async () => {
    const { a } = apps;
    const results = await Promise.all(Array.from({ length: 30 }, () => a.app.inject({ method: 'GET', url: '/healthz' })));
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
  });
});
