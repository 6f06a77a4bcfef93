/**
 * Delivery rules over HTTP: org isolation (404), scopes (403 SCOPE_REQUIRED), every bad input answered
 * with the section 7 envelope and changing nothing, quotes held to their selection, max_cost, a pending
 * audience (409 AUDIENCE_PENDING, also through the match-id forward) and an expired one (409 AUDIENCE_EXPIRED).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestOrg } from '../helpers/app.ts';
import { cond } from '../segments/setup.ts';
import { setupDeliveries, type DeliveryTest } from './api-setup.ts';

let d: DeliveryTest;
let aud: string;
let delivered: string;

beforeAll(async () => {
  d = await setupDeliveries();
  aud = await d.audience([cond('state', '=', 'CA')]);
  delivered = (await d.waitDone(aud, (await d.deliver(aud, { field_list: ['age'] })).body.delivery_id)).delivery_id;
}, 120_000);
afterAll(async () => {
  await d?.close();
});

/** Everything a refused request must leave as it was. */
async function snapshot() {
  return { deliveries: (await d.call('GET', `/v1/audiences/${aud}/deliveries`)).body, ledger: await d.ledger() };
}

describe('delivery rules', () => {
  it("another organization's audience, delivery and destination are 404", async () => {
    const other = await createTestOrg(d.t);
    const tok = await other.token();
    const dest = (
      await d.call('POST', '/v1/delivery-destinations', {
        kind: 'sftp',
        name: 'x',
        config: { host: 'sftp.example.com', username: 'u' },
        secrets: { password: 'p' },
      })
    ).body;
    const cases: [string, string, unknown?][] = [
      ['GET', `/v1/audiences/${aud}/deliveries`],
      ['GET', `/v1/audiences/${aud}/deliveries/${delivered}`],
      ['POST', `/v1/audiences/${aud}/deliveries`, {}],
      ['POST', `/v1/audiences/${aud}/deliveries/quote`, {}],
      ['GET', `/v1/delivery-destinations/${dest.id}`],
      ['POST', `/v1/delivery-destinations/${dest.id}/test`],
      ['DELETE', `/v1/delivery-destinations/${dest.id}`],
    ];
    for (const [method, url, body] of cases) {
      const res = await d.call(method, url, body, tok);
      expect([url, res.status]).toEqual([url, 404]);
      expect(res.body.error).toMatch(/AUDIENCE_NOT_FOUND|DESTINATION_NOT_FOUND/);
    }
    // Their own audience cannot name our destination either.
    const s2 = await d.call('POST', '/v1/segments', { name: 'o', filters: [cond('state', '=', 'CA')] }, tok);
    const res = await d.call(
      'POST',
      `/v1/audiences/${s2.body.audience_id}/deliveries`,
      { destination: 'sftp', destination_id: dest.id },
      tok,
    );
    expect(res.body.error).toBe('DESTINATION_NOT_FOUND');
    // And a delivery id of ours under another audience of ours is not found.
    const aud2 = await d.audience([cond('state', '=', 'TX')]);
    expect((await d.call('GET', `/v1/audiences/${aud2}/deliveries/${delivered}`)).body.error).toBe('DELIVERY_NOT_FOUND');
  });

  it('needs creator to quote and deliver, discovery to read, account for destinations (403 SCOPE_REQUIRED)', async () => {
    const discovery = await d.org.token(['discovery']);
    const creator = await d.org.token(['discovery', 'creator']);
    const before = await snapshot();
    for (const [method, url, tok] of [
      ['POST', `/v1/audiences/${aud}/deliveries`, discovery],
      ['POST', `/v1/audiences/${aud}/deliveries/quote`, discovery],
      ['POST', '/v1/delivery-destinations', creator],
      ['GET', '/v1/delivery-destinations', creator],
    ] as const) {
      const res = await d.call(method, url, method === 'POST' ? {} : undefined, tok);
      expect([url, res.status, res.body.error]).toEqual([url, 403, 'SCOPE_REQUIRED']);
    }
    expect((await d.call('GET', `/v1/audiences/${aud}/deliveries`, undefined, discovery)).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it('answers every bad input with the envelope and changes nothing', async () => {
    const before = await snapshot();
    const bad: [Record<string, unknown>, number, string][] = [
      [{ field_list: ['age'], template_id: 'standard_enrichment' }, 400, 'AMBIGUOUS_FIELD_SELECTION'],
      [{ field_list: ['no_such_field'] }, 400, 'UNKNOWN_FIELD'],
      [{ template_id: 'nope' }, 400, 'INVALID_REQUEST'],
      [{ output_format: 'parquet' }, 400, 'INVALID_REQUEST'],
      [{ output_compression: 'zip' }, 400, 'INVALID_REQUEST'],
      [{ destination: 'ftp' }, 400, 'INVALID_REQUEST'],
      [{ destination: 'sftp' }, 400, 'DESTINATION_ID_REQUIRED'],
      [{ destination: 'download', destination_id: 'dst_x' }, 400, 'INVALID_REQUEST'],
      [{ destination: 's3', destination_id: 'dst_nope' }, 404, 'DESTINATION_NOT_FOUND'],
      [{ surprise: 1 }, 400, 'INVALID_REQUEST'],
      [{ max_cost: -1 }, 400, 'INVALID_REQUEST'],
      [{ quote_id: 'dq_unknown' }, 404, 'QUOTE_NOT_FOUND'],
      [{ webhook_url: 'not a url' }, 400, 'INVALID_WEBHOOK_URL'],
    ];
    for (const [body, status, code] of bad) {
      const res = await d.deliver(aud, 'field_list' in body || 'template_id' in body ? body : { field_list: ['state'], ...body });
      expect([JSON.stringify(body), res.status, res.body.error]).toEqual([JSON.stringify(body), status, code]);
      expect(res.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
    }
    // max_cost holds the estimate, which bills members not licensed yet (aud's were licensed by the
    // first delivery, so its estimate may be 0): an audience never delivered.
    const fresh = await d.audience([cond('state', '=', 'NY')]);
    const over = await d.deliver(fresh, { field_list: ['state'], max_cost: 0.01 });
    expect([over.status, over.body.error]).toEqual([409, 'MAX_COST_EXCEEDED']);
    expect((await d.call('GET', `/v1/audiences/${fresh}/deliveries`)).body.deliveries).toEqual([]);
    // A quote holds the delivery to its selection.
    const q = (await d.call('POST', `/v1/audiences/${aud}/deliveries/quote`, { field_list: ['age', 'state'] })).body;
    const mismatch = await d.deliver(aud, { field_list: ['state'], quote_id: q.quote_id });
    expect([mismatch.status, mismatch.body.error]).toEqual([409, 'QUOTE_MISMATCH']);
    const s3Dest = (
      await d.call('POST', '/v1/delivery-destinations', {
        kind: 's3',
        name: 'b',
        config: { region: 'us-east-1', bucket: 'exports' },
        secrets: { access_key_id: 'a', secret_access_key: 'b' },
      })
    ).body;
    const kind = await d.deliver(aud, { destination: 'sftp', destination_id: s3Dest.id });
    expect([kind.status, kind.body.error]).toEqual([400, 'DESTINATION_KIND_MISMATCH']);
    expect((await d.call('GET', `/v1/audiences/${aud}/deliveries/dlv_nope`)).body.error).toBe('DELIVERY_NOT_FOUND');
    expect(await snapshot()).toEqual({ ...before, ledger: before.ledger });
  });

  it('Idempotency-Key replays the same delivery and refuses a different body under the same key', async () => {
    const a = await d.audience([cond('state', '=', 'FL')]);
    const tok = await d.org.token();
    const send = (body: object) =>
      d.t.app.inject({
        method: 'POST',
        url: `/v1/audiences/${a}/deliveries`,
        headers: { ...bearer(tok), 'idempotency-key': 'dlv-key-1' },
        payload: body,
      });
    const first = await send({ field_list: ['age'] });
    expect(first.statusCode).toBe(202);
    const replay = await send({ field_list: ['age'] });
    expect(replay.statusCode).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().delivery_id).toBe(first.json().delivery_id);
    const other = await send({ field_list: ['gender'] });
    expect([other.statusCode, other.json().error]).toEqual([409, 'IDEMPOTENCY_KEY_CONFLICT']);
    expect((await d.call('GET', `/v1/audiences/${a}/deliveries`)).body.deliveries).toHaveLength(1);
    await d.waitDone(a, first.json().delivery_id);
  });

  it('409 AUDIENCE_PENDING while a member segment builds, also through POST /v1/match/{match_id}/deliveries', async () => {
    const fm = await d.call('POST', '/v1/match/file', { name: 'crm' });
    expect(fm.status).toBe(201);
    for (const url of [
      `/v1/audiences/${fm.body.audience_id}/deliveries`,
      `/v1/match/${fm.body.match_id}/deliveries`,
      `/v1/audiences/${fm.body.audience_id}/deliveries/quote`,
    ]) {
      const res = await d.call('POST', url, {});
      expect([url, res.status, res.body.error]).toEqual([url, 409, 'AUDIENCE_PENDING']);
    }
    expect((await d.call('GET', `/v1/match/${fm.body.match_id}/deliveries`)).body).toEqual({ deliveries: [] });
    expect((await d.call('POST', `/v1/match/${aud}/deliveries`, {})).body.error).toBe('SEGMENT_NOT_FOUND');
  });

  it('a quote expires after an hour (409 QUOTE_EXPIRED); past its 90 days the audience is 409 AUDIENCE_EXPIRED', async () => {
    const q = (await d.call('POST', `/v1/audiences/${aud}/deliveries/quote`, { field_list: ['gender'] })).body;
    d.clock.advance(3600_000 + 1000);
    const late = await d.deliver(aud, { field_list: ['gender'], quote_id: q.quote_id });
    expect([late.status, late.body.error]).toEqual([409, 'QUOTE_EXPIRED']);
    d.clock.advance(91 * 24 * 3600_000);
    const res = await d.deliver(aud, { field_list: ['gender'] });
    expect([res.status, res.body.error]).toEqual([409, 'AUDIENCE_EXPIRED']);
    expect((await d.call('POST', `/v1/audiences/${aud}/deliveries/quote`, {})).body.error).toBe('AUDIENCE_EXPIRED');
  });
  it('a prepaid organization short of balance gets 402 priced from the quote (never the exact count) and nothing is created', async () => {
    const poor = await createTestOrg(d.t);
    const tok = await poor.token();
    const { accounts } = d.t.services.billingModule;
    await accounts.setup(poor.orgId, { mode: 'prepaid' });
    await accounts.grant(poor.orgId, { kind: 'promotional_credit', amountCents: 10 });
    const seg = await d.call('POST', '/v1/segments', { name: 'ca', filters: [cond('state', '=', 'CA')] }, tok);
    expect(seg.status, JSON.stringify(seg.body)).toBe(201);
    const audience = seg.body.audience_id as string;
    const quote = (await d.call('POST', `/v1/audiences/${audience}/deliveries/quote`, {}, tok)).body;
    const exactCents = (await d.g.keys(`state = 'CA'`)).size * quote.cost_estimate.unit_price * 100;
    expect(Math.round(quote.cost_estimate.total_cost * 100)).not.toBe(Math.round(exactCents));
    const res = await d.call('POST', `/v1/audiences/${audience}/deliveries`, {}, tok);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: 'BILLING_INSUFFICIENT_BALANCE',
      required_amount: quote.cost_estimate.total_cost,
      available_balance: 0.1,
      amount_needed: Math.round(quote.cost_estimate.total_cost * 100 - 10) / 100,
      request_id: expect.any(String),
    });
    expect((await d.call('GET', `/v1/audiences/${audience}/deliveries`, undefined, tok)).body.deliveries).toEqual([]);
    expect(await d.t.services.billing.ledger(poor.orgId)).toEqual([]);
  });
});
