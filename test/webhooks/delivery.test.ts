import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { verifyWebhook } from '../../src/webhook-receiver/verify.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { db, readyData, sleep, startReceiver, startWebhookWorker, waitFor } from './helpers.ts';

/** Delivery through the real worker path to real loopback receivers (spec 6). */
describe('webhook delivery', () => {
  let t: TestApp;
  let org: TestOrg;
  let worker: { stop(): Promise<void> } | null = null;
  const receivers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    // Real clock: signatures are checked against the receiver's time and retries wait in real time.
    const webhooks = { ...loadConfig({}).webhooks, retryScheduleSeconds: [0.05], attemptTimeoutMs: 400, concurrency: 4 };
    t = await testApp({ clock: systemClock, config: { webhooks } });
    org = await createTestOrg(t);
    worker = await startWebhookWorker(t);
  });
  afterEach(async () => {
    while (receivers.length) await receivers.pop()!.close();
  });
  afterAll(async () => {
    await worker?.stop();
    await t.app.close();
  });

  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  const emit = async (orgId: string, webhookUrl?: string, type: 'segment.ready' | 'delivery.failed' = 'segment.ready') =>
    (await db()).transaction().execute((trx) =>
      t.services.events.emit(trx, {
        orgId,
        type: type as 'segment.ready',
        subject: { kind: 'segment', id: 'seg_1', name: 'Dog owners' },
        data: readyData,
        webhookUrl,
      }),
    );
  const setOrgUrl = async (o: TestOrg, url: string) =>
    (
      await t.app.inject({ method: 'PUT', url: '/v1/settings/webhook', headers: bearer(await o.token(['account'])), payload: { url } })
    ).json();
  const subscribe = async (o: TestOrg, target_url: string, events: string[]) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhook-subscriptions',
        headers: bearer(await o.token(['account'])),
        payload: { target_url, events },
      })
    ).json();
  const deliveries = async (o: TestOrg, eventId: string) =>
    (await t.app.inject({ method: 'GET', url: `/v1/events/${eventId}/deliveries`, headers: bearer(await o.token(['account'])) })).json()
      .deliveries;

  it('signs each request so the published helper verifies it; a replayed old timestamp is rejected', async () => {
    const o = await createTestOrg(t);
    const r = await receiver();
    const { secret } = await setOrgUrl(o, r.url);
    const { eventId } = await emit(o.orgId);
    await waitFor(() => r.received.length === 1);
    const req = r.received[0]!;
    const check = (over: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
      verifyWebhook({
        secret,
        rawBody: req.rawBody,
        timestamp: req.headers['x-svc-timestamp'],
        signature: req.headers['x-svc-signature'],
        ...over,
      });
    expect(check()).toMatchObject({ ok: true });
    // Signed with the secret shown once, although only its sealed form is stored (ADR 006).
    const stored = await (
      await db()
    )
      .selectFrom('webhook_settings')
      .select('secret')
      .where('org_id', '=', o.orgId)
      .executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).toMatch(/^wsk1\./);
    expect(req.headers['x-svc-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(req.headers).toMatchObject({
      'x-svc-event-id': eventId,
      'x-svc-event-type': 'segment.ready',
      'content-type': 'application/json',
    });
    expect(req.headers['user-agent']).toMatch(/AudienceDataService-Webhooks/);
    const body = JSON.parse(req.rawBody);
    expect(body).toMatchObject({
      id: eventId,
      type: 'segment.ready',
      org_id: o.orgId,
      api_version: '2026-11-01',
      links: {},
      subject: { kind: 'segment', id: 'seg_1', name: 'Dog owners' },
      data: readyData,
    });
    expect(Object.keys(body).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'links', 'org_id', 'subject', 'type']);
    // Replay five minutes and one second later: refused. Tampered body or wrong secret: refused.
    const sent = Number(req.headers['x-svc-timestamp']);
    expect(check({ nowSeconds: sent + 301 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(check({ nowSeconds: sent + 300 })).toMatchObject({ ok: true });
    expect(check({ rawBody: req.rawBody.replace('Dog', 'Cat') })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ secret: 'whsec_other' })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('retries 500, 429, 408 and a timeout, then succeeds; every attempt is signed afresh and recorded', async () => {
    const o = await createTestOrg(t);
    const plan: (number | 'hang')[] = [500, 429, 408, 'hang', 200];
    const r = await receiver((n) => plan[n] ?? 200);
    const { secret } = await setOrgUrl(o, r.url);
    const { eventId, deliveryIds } = await emit(o.orgId);
    await waitFor(async () => (await deliveries(o, eventId))[0]?.status === 'succeeded');
    expect(r.received).toHaveLength(5);
    for (const req of r.received) {
      expect(req.headers['x-svc-event-id']).toBe(eventId);
      expect(
        verifyWebhook({
          secret,
          rawBody: req.rawBody,
          timestamp: req.headers['x-svc-timestamp'],
          signature: req.headers['x-svc-signature'],
        }).ok,
      ).toBe(true);
    }
    expect(new Set(r.received.map((x) => x.rawBody)).size).toBe(1);
    const [d] = await deliveries(o, eventId);
    expect(d).toMatchObject({
      id: deliveryIds[0],
      destination: 'organization',
      attempt_count: 5,
      last_status_code: 200,
      failure_reason: null,
    });
    expect(d.attempts.map((a: { status_code: number | null; outcome: string }) => [a.status_code, a.outcome])).toEqual([
      [500, 'retry'],
      [429, 'retry'],
      [408, 'retry'],
      [null, 'retry'],
      [200, 'succeeded'],
    ]);
    expect(d.attempts[3].error).toMatch(/400 ms/);
  });

  it('stops after 10 attempts in all', async () => {
    const o = await createTestOrg(t);
    const r = await receiver(() => 503);
    await setOrgUrl(o, r.url);
    const { eventId } = await emit(o.orgId);
    await waitFor(async () => (await deliveries(o, eventId))[0]?.status === 'failed', 25_000);
    await sleep(800);
    expect(r.received).toHaveLength(10);
    expect((await deliveries(o, eventId))[0]).toMatchObject({
      attempt_count: 10,
      failure_reason: 'attempts_exhausted',
      last_status_code: 503,
    });
  }, 40_000);

  it('410 Gone ends delivery and disables the subscription; another 4xx is final for that event', async () => {
    const o = await createTestOrg(t);
    const gone = await receiver(() => 410);
    const bad = await receiver(() => 400);
    const sub = await subscribe(o, gone.url, ['segment.ready']);
    await setOrgUrl(o, bad.url);
    const { eventId } = await emit(o.orgId);
    await waitFor(async () => (await deliveries(o, eventId)).every((d: { status: string }) => d.status === 'failed'));
    const byDest = Object.fromEntries((await deliveries(o, eventId)).map((d: { destination: string }) => [d.destination, d]));
    expect(byDest.subscription).toMatchObject({ failure_reason: 'endpoint_gone', attempt_count: 1, last_status_code: 410 });
    expect(byDest.organization).toMatchObject({ failure_reason: 'rejected', attempt_count: 1, last_status_code: 400 });
    const got = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook-subscriptions/${sub.id}`,
      headers: bearer(await o.token(['account'])),
    });
    expect(got.json()).toMatchObject({ status: 'disabled', disabled_reason: 'endpoint_gone' });
    // The disabled subscription receives nothing more; the 400 endpoint still gets new events.
    await emit(o.orgId);
    await waitFor(() => bad.received.length === 2);
    await sleep(700);
    expect(gone.received).toHaveLength(1);
  });

  it('routes: request URL replaces the organization URL; subscriptions always get their types', async () => {
    const o = await createTestOrg(t);
    const [orgUrl, requestUrl, subReady, subFailed] = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    await setOrgUrl(o, orgUrl.url);
    await subscribe(o, subReady.url, ['segment.ready', 'segment.failed']);
    await subscribe(o, subFailed.url, ['delivery.failed']);
    const one = await emit(o.orgId, requestUrl.url);
    await waitFor(() => requestUrl.received.length === 1 && subReady.received.length === 1);
    const two = await emit(o.orgId);
    await waitFor(() => orgUrl.received.length === 1 && subReady.received.length === 2);
    await sleep(700);
    expect(orgUrl.received.map((x) => x.headers['x-svc-event-id'])).toEqual([two.eventId]);
    expect(requestUrl.received.map((x) => x.headers['x-svc-event-id'])).toEqual([one.eventId]);
    expect(subReady.received.map((x) => x.headers['x-svc-event-id'])).toEqual([one.eventId, two.eventId]);
    expect(subFailed.received).toHaveLength(0);
    const dests = (await deliveries(o, one.eventId)).map((d: { destination: string }) => d.destination).sort();
    expect(dests).toEqual(['request', 'subscription']);
  });

  it('signs one-off URLs with the organization secret, creating one if the org has none', async () => {
    const o = await createTestOrg(t);
    const r = await receiver();
    await emit(o.orgId, r.url);
    await waitFor(() => r.received.length === 1);
    const settings = (
      await t.app.inject({ method: 'GET', url: '/v1/settings/webhook', headers: bearer(await o.token(['account'])) })
    ).json();
    expect(settings).toMatchObject({ url: null, status: 'unset' });
    expect(settings.secret_hint).toMatch(/^whsec_/);
  });

  it('a slow receiver does not hold up others', async () => {
    const o = await createTestOrg(t);
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    await subscribe(o, slow.url, ['segment.ready']);
    for (let i = 0; i < 3; i++) await emit(o.orgId, fast.url);
    await waitFor(() => fast.received.length === 3, 3000);
    expect(fast.received).toHaveLength(3);
  });

  it('an event survives a worker restart between commit and send, and is sent once', async () => {
    const o = await createTestOrg(t);
    const r = await receiver();
    await setOrgUrl(o, r.url);
    await worker!.stop();
    worker = null;
    const { eventId } = await emit(o.orgId);
    await sleep(1000);
    expect(r.received).toHaveLength(0);
    worker = await startWebhookWorker(t);
    await waitFor(() => r.received.length === 1);
    await sleep(1500);
    expect(r.received.map((x) => x.headers['x-svc-event-id'])).toEqual([eventId]);
  });

  it('never sends an event emitted in a transaction that rolled back', async () => {
    const o = await createTestOrg(t);
    const r = await receiver();
    await setOrgUrl(o, r.url);
    let eventId = '';
    await expect(
      (await db()).transaction().execute(async (trx) => {
        eventId = (
          await t.services.events.emit(trx, {
            orgId: o.orgId,
            type: 'segment.ready',
            subject: { kind: 'segment', id: 's', name: null },
            data: readyData,
          })
        ).eventId;
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    await sleep(1200);
    expect(r.received).toHaveLength(0);
    const res = await t.app.inject({ method: 'GET', url: `/v1/events/${eventId}`, headers: bearer(await o.token(['account'])) });
    expect(res.statusCode).toBe(404);
  });

  it('redelivers a finished delivery with the same event id, and keeps the log per organization', async () => {
    const o = await createTestOrg(t);
    const r = await receiver();
    const sub = await subscribe(o, r.url, ['segment.ready']);
    const { eventId, deliveryIds } = await emit(o.orgId);
    await waitFor(() => r.received.length === 1);
    await waitFor(async () => (await deliveries(o, eventId))[0]?.status === 'succeeded');
    const token = await o.token(['account']);
    const again = await t.app.inject({ method: 'POST', url: `/v1/webhook-deliveries/${deliveryIds[0]}/redeliver`, headers: bearer(token) });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ status: 'pending', redelivery_of: deliveryIds[0], event_id: eventId });
    await waitFor(() => r.received.length === 2);
    expect(r.received[1]!.headers['x-svc-event-id']).toBe(eventId);
    expect(r.received[1]!.rawBody).toBe(r.received[0]!.rawBody);
    const subLog = await t.app.inject({ method: 'GET', url: `/v1/webhook-subscriptions/${sub.id}/deliveries`, headers: bearer(token) });
    expect(subLog.json().deliveries).toHaveLength(2);
    const one = await t.app.inject({ method: 'GET', url: `/v1/webhook-deliveries/${deliveryIds[0]}`, headers: bearer(token) });
    expect(one.json()).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, status_code: 200, outcome: 'succeeded' }] });

    // Another organization sees none of it.
    const otherToken = await org.token(['account']);
    for (const url of [
      `/v1/events/${eventId}`,
      `/v1/events/${eventId}/deliveries`,
      `/v1/webhook-deliveries/${deliveryIds[0]}`,
      `/v1/webhook-subscriptions/${sub.id}/deliveries`,
      `/v1/webhook-subscriptions/${sub.id}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(otherToken) });
      expect(res.statusCode, url).toBe(404);
    }
    const steal = await t.app.inject({
      method: 'POST',
      url: `/v1/webhook-deliveries/${deliveryIds[0]}/redeliver`,
      headers: bearer(otherToken),
    });
    expect(steal.statusCode).toBe(404);
  });
});
