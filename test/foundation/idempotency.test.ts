import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { defineOperation, reply } from '../../src/core/operation.ts';
import { registerOperations } from '../../src/http/rest.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';

/**
 * The generic Idempotency-Key mechanism (spec 4.5, 8), exercised through a route that uses it the
 * way POST /v1/match does: it counts executions and returns a URL that must be re-signed on replay.
 */
describe('Idempotency-Key', () => {
  const clock = new ManualClock('2026-06-01T00:00:00Z');
  let t: TestApp;
  let org: TestOrg;
  let executions = 0;

  beforeAll(async () => {
    t = await testApp({
      clock,
      extraRoutes: (app, built) => {
        // A declared operation opting into Idempotency-Key, the way POST /v1/match does: it counts
        // executions and returns a URL that must be re-signed on replay.
        const Charge = Type.Object({ charge: Type.Integer(), amount: Type.Number(), url: Type.String() });
        registerOperations(
          app,
          [
            defineOperation({
              id: 'testCharge',
              method: 'POST',
              path: '/v1/test/charge',
              tags: ['Test'],
              summary: 'test',
              description: 'test',
              access: 'creator',
              effect: 'spend',
              input: {
                body: Type.Object({ amount: Type.Number(), fail: Type.Optional(Type.Boolean()), slow: Type.Optional(Type.Boolean()) }),
              },
              status: 201,
              responses: { 201: Charge },
              errors: [],
              examples: [],
              idempotency: { replay: async (stored) => ({ ...stored, url: `signed-${clock.now().getTime()}` }) },
              handler: async (_ctx, { body }) => {
                executions += 1;
                if (body.slow) await new Promise((r) => setTimeout(r, 300));
                if (body.fail) throw new Error('upstream down');
                return reply(201, { charge: executions, amount: body.amount, url: `signed-${clock.now().getTime()}` });
              },
            }),
          ],
          { idempotency: built.services.idempotency },
        );
      },
    });
    org = await createTestOrg(t);
  });
  afterAll(() => t.app.close());

  const charge = async (key: string, body: object) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/test/charge',
      headers: { ...bearer(await org.token()), 'idempotency-key': key },
      payload: body,
    });

  it('replays the original response for the same key and body, refreshing what expires', async () => {
    const before = executions;
    const first = await charge('key-replay-1', { amount: 5 });
    expect(first.statusCode).toBe(201);
    clock.advance(60_000);
    const again = await charge('key-replay-1', { amount: 5 });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().charge).toBe(first.json().charge);
    expect(again.json().url).not.toBe(first.json().url);
    expect(executions).toBe(before + 1);
  });

  it('treats the same body in another key order as identical', async () => {
    const before = executions;
    await charge('key-order', { amount: 1, note: 'a' });
    const replay = await charge('key-order', { note: 'a', amount: 1 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(executions).toBe(before + 1);
  });

  it('answers 409 IDEMPOTENCY_KEY_CONFLICT for the same key with a different body, changing nothing', async () => {
    await charge('key-conflict', { amount: 5 });
    const before = executions;
    const res = await charge('key-conflict', { amount: 6 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_CONFLICT' });
    expect(executions).toBe(before);
  });

  it('runs two concurrent identical requests once', async () => {
    const before = executions;
    const [a, b] = await Promise.all([
      charge('key-concurrent', { amount: 9, slow: true }),
      charge('key-concurrent', { amount: 9, slow: true }),
    ]);
    expect(executions).toBe(before + 1);
    expect(a.json().charge).toBe(b.json().charge);
    expect([a.headers['idempotent-replayed'], b.headers['idempotent-replayed']].sort()).toEqual(['false', 'true']);
  });

  it('runs again after 24 hours', async () => {
    const first = await charge('key-expiry', { amount: 2 });
    clock.advance(24 * 3600_000 + 1000);
    const later = await charge('key-expiry', { amount: 2 });
    expect(later.headers['idempotent-replayed']).toBe('false');
    expect(later.json().charge).not.toBe(first.json().charge);
  });

  it('releases the key when the request fails, so a retry runs', async () => {
    const failed = await charge('key-fail', { amount: 3, fail: true });
    expect(failed.statusCode).toBe(500);
    const retried = await charge('key-fail', { amount: 3 });
    expect(retried.statusCode).toBe(201);
  });

  it('keeps keys per organization', async () => {
    const other = await createTestOrg(t);
    await charge('key-shared-name', { amount: 4 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/test/charge',
      headers: { ...bearer(await other.token()), 'idempotency-key': 'key-shared-name' },
      payload: { amount: 5 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBe('false');
  });
});
