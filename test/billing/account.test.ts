/**
 * Account endpoints over HTTP (spec 4.8): contract and its scheduled change at the billing boundary,
 * the payment-method portal with each simulated provider outcome, auto-recharge (bounds, refusals,
 * payment-gated settings, one recharge per crossing), usage reads, scopes and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/modules/billing/index.ts';
import { testStores } from '../helpers/stores.ts';
import { range, setupBilling, START, type BillingOrg, type BillingTest } from './setup.ts';

let b: BillingTest;
beforeAll(async () => {
  b = await setupBilling();
}, 60_000);
afterAll(async () => b?.close());

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Austin', state: 'TX', postal_code: '78701', country: 'US' };

async function portalUrl(org: BillingOrg): Promise<string> {
  const res = await b.call('POST', '/v1/account/payment-method/portal', org.token, { return_url: 'https://app.example.com/billing' });
  expect(res.status).toBe(200);
  return new URL(res.body.portal_url).pathname;
}
async function submitCard(path: string, card: string) {
  return b.t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ card_number: card, ...ADDRESS }).toString(),
  });
}
async function addCard(org: BillingOrg, card: string) {
  const res = await submitCard(await portalUrl(org), card);
  expect(res.statusCode).toBe(200);
}
const put = (org: BillingOrg, body: object) => b.call('PUT', '/v1/account/auto-recharge', org.token, body);
const spend = async (orgId: string, identities: number[], key: string) => {
  const { database } = await testStores();
  return database.db.transaction().execute((trx) =>
    b.t.services.billing.chargeDelivery(trx, {
      orgId,
      audienceSubtype: 'filter',
      destination: 'download',
      fields: [],
      identities,
      idempotencyKey: key,
    }),
  );
};

describe('contract', () => {
  it('shows the terms, schedules a change at the boundary (idempotent), and applies it there', async () => {
    const org = await b.org({ tier: 'pilot' });
    const contract = await b.call('GET', '/v1/account/contract', org.token);
    expect(contract.status).toBe(200);
    expect(contract.body).toMatchObject({
      billing_mode: 'invoiced',
      parent_billed: false,
      current_period_start: START,
      next_billing_boundary_at: '2026-04-01T00:00:00.000Z',
      scheduled_change: null,
      terms: {
        tier: 'pilot',
        cadence: 'monthly',
        commitment_term_months: 0,
        usage_discount_bps: 0,
        usage_rates: { match: { microbatch: 4, file: 2 }, audience_delivery: { filter: 8, matched: 6, similarity: 10, propensity: 10 } },
      },
    });
    const body = { request_id: 'change-0001', tier: 'growth', cadence: 'annual' };
    const res = await b.call('POST', '/v1/account/contract/change', org.token, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'scheduled',
      effective_at: '2026-04-01T00:00:00.000Z',
      scheduled_change: {
        kind: 'replacement',
        request_id: 'change-0001',
        status: 'scheduled',
        previous_contract_end_at: '2026-04-01T00:00:00.000Z',
        successor_contract_id: null,
        error_code: null,
        terms: {
          tier: 'growth',
          cadence: 'annual',
          commitment_term_months: 12,
          commitment_amount_cents: 2_400_000,
          usage_discount_bps: 500,
        },
      },
    });
    expect((await b.call('POST', '/v1/account/contract/change', org.token, body)).body).toEqual(res.body);
    const conflict = await b.call('POST', '/v1/account/contract/change', org.token, { ...body, tier: 'scale' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('REQUEST_ID_CONFLICT');

    // Before the boundary nothing changes; at the boundary the job applies it and the tier follows.
    expect(await b.t.services.billingModule.accounts.applyBoundaries()).not.toContainEqual({ org_id: org.orgId, tier: 'growth' });
    b.clock.set('2026-04-01T00:30:00.000Z');
    expect(await b.t.services.billingModule.accounts.applyBoundaries()).toContainEqual({ org_id: org.orgId, tier: 'growth' });
    expect((await b.t.services.organizations.findOrganization(org.orgId))?.tier).toBe('growth');
    const after = await b.call('GET', '/v1/account/contract', await org.newToken());
    expect(after.body).toMatchObject({
      terms: { tier: 'growth', cadence: 'annual' },
      current_period_start: '2026-04-01T00:00:00.000Z',
      next_billing_boundary_at: '2027-01-01T00:00:00.000Z',
      scheduled_change: null,
    });
    b.clock.set(START);
  });

  it('refuses enterprise contracts, parent-billed children, bad input and missing scopes, changing nothing', async () => {
    const enterprise = await b.org({ tier: 'enterprise' });
    const refused = await b.call('POST', '/v1/account/contract/change', enterprise.token, { request_id: 'change-0002', tier: 'scale' });
    expect([refused.status, refused.body.error]).toEqual([409, 'ENTERPRISE_CONTRACT_MANAGED']);
    const parent = await b.org({ tier: 'growth' });
    const child = await b.org({ parent: parent.orgId });
    const childRes = await b.call('POST', '/v1/account/contract/change', child.token, { request_id: 'change-0003', tier: 'scale' });
    expect([childRes.status, childRes.body.error]).toEqual([403, 'PARENT_BILLED_ORGANIZATION']);
    const org = await b.org({ tier: 'pilot' });
    for (const body of [
      { request_id: 'short', tier: 'growth' },
      { request_id: 'change-0004', tier: 'enterprise' },
      { request_id: 'x'.repeat(161), tier: 'growth' },
      { request_id: 'change-0005', tier: 'growth', extra: 1 },
      { tier: 'growth' },
    ]) {
      const res = await b.call('POST', '/v1/account/contract/change', org.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String), request_id: expect.any(String) });
    }
    expect((await b.call('GET', '/v1/account/contract', org.token)).body.scheduled_change).toBeNull();
    const discovery = await org.newToken(['discovery']);
    for (const [method, url] of [
      ['GET', '/v1/account/contract'],
      ['GET', '/v1/account/credits'],
      ['GET', '/v1/account/usage'],
      ['GET', '/v1/account/auto-recharge'],
      ['POST', '/v1/account/contract/change'],
      ['PUT', '/v1/account/auto-recharge'],
      ['POST', '/v1/account/payment-method/portal'],
    ] as const) {
      const res = await b.call(method, url, discovery, method === 'GET' ? undefined : {});
      expect([res.status, res.body.error], url).toEqual([403, 'SCOPE_REQUIRED']);
    }
    expect((await b.call('GET', '/v1/account/usage?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', org.token)).status).toBe(400);
  });
});

describe('payment-method portal', () => {
  it('serves a single-use page valid for 15 minutes; refused cards and provider outages keep the link usable', async () => {
    const org = await b.org({ mode: 'prepaid' });
    expect((await b.call('POST', '/v1/account/payment-method/portal', org.token, { return_url: 'javascript:alert(1)' })).status).toBe(400);
    const path = await portalUrl(org);
    const page = await b.t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Collection history');
    expect((await submitCard(path, '1234')).statusCode).toBe(400);
    b.provider.failNext(1);
    expect((await submitCard(path, TEST_CARDS.success)).statusCode).toBe(502);
    const saved = await submitCard(path, TEST_CARDS.success);
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('visa ending 4242');
    expect((await submitCard(path, TEST_CARDS.success)).statusCode).toBe(410);
    expect((await b.t.app.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    const late = await portalUrl(org);
    b.clock.advance(15 * 60_000);
    expect((await b.t.app.inject({ method: 'GET', url: late })).statusCode).toBe(410);
    b.clock.set(START);
    // Another organization's link never touches this one.
    const other = await b.org({ mode: 'prepaid' });
    await addCard(other, TEST_CARDS.declined);
    const acc = await b.t.services.billingModule.accounts.account(org.orgId);
    expect(acc.payment_method_label).toBe('visa ending 4242');
    expect(JSON.parse(acc.billing_address!)).toEqual(ADDRESS);
  });
});

describe('auto-recharge', () => {
  const settings = { request_id: 'recharge-0001', enabled: true, threshold_cents: 5000, recharge_to_cents: 20000 };

  it('checks bounds, mode, owner, payment method and billing address', async () => {
    const invoiced = await b.org();
    expect((await put(invoiced, settings)).body.error).toBe('PREPAID_BILLING_REQUIRED');
    const org = await b.org({ mode: 'prepaid' });
    for (const bad of [
      { ...settings, threshold_cents: 499 },
      { ...settings, recharge_to_cents: 5_000_001 },
      { ...settings, request_id: 'short' },
      { ...settings, threshold_cents: 20000, recharge_to_cents: 20000 },
    ]) {
      const res = await put(org, bad);
      expect([res.status, res.body.error]).toEqual([400, 'INVALID_REQUEST']);
    }
    const admin = await org.addUser('admin');
    const adminRes = await b.call('PUT', '/v1/account/auto-recharge', await org.newToken(undefined, admin), settings);
    expect([adminRes.status, adminRes.body.error]).toEqual([403, 'BILLING_OWNER_REQUIRED']);
    const noCard = await put(org, settings);
    expect([noCard.status, noCard.body.error]).toEqual([422, 'PAYMENT_METHOD_REQUIRED']);
    const get = await b.call('GET', '/v1/account/auto-recharge', org.token);
    expect(get.body).toMatchObject({
      auto_recharge: { configured: false, enabled: false, payment_status: 'none', pending_change: null },
      action_url: null,
    });
  });

  it('charges up to the target once per crossing and grants a paid commit after payment', async () => {
    const org = await b.org({ tier: 'paygo', mode: 'prepaid' });
    await addCard(org, TEST_CARDS.success);
    const res = await put(org, settings);
    expect(res.status).toBe(200);
    expect(res.body.auto_recharge).toMatchObject({
      configured: true,
      enabled: true,
      threshold_cents: 5000,
      recharge_to_cents: 20000,
      configuration_request_id: 'recharge-0001',
      payment_status: 'paid',
      pending_change: null,
      last_error_code: null,
    });
    expect(res.body.auto_recharge.payment_provider_payment_intent_id).toMatch(/^pi_/);
    expect((await b.call('GET', '/v1/account/auto-recharge', org.token)).body).toEqual(res.body);
    expect((await put(org, settings)).body).toEqual(res.body);
    expect((await put(org, { ...settings, threshold_cents: 6000 })).body.error).toBe('REQUEST_ID_CONFLICT');
    const credits = (await b.call('GET', '/v1/account/credits', org.token)).body.balances;
    expect(credits).toMatchObject([{ kind: 'paid_commit', remaining_cents: 20000, name: 'Auto-recharge' }]);

    // Spend 16,000 cents (1,600 identities x 10): the balance (4,000) crosses the threshold; racing checks charge once.
    await spend(org.orgId, range(1, 1600), 'big');
    const recharge = b.t.services.billingModule.recharge;
    const outcomes = await Promise.all([recharge.check(org.orgId), recharge.check(org.orgId)]);
    expect(outcomes.filter((o) => o === 'charged')).toHaveLength(1);
    expect(await recharge.check(org.orgId)).toBe('none');
    expect(await b.t.services.billingModule.accounts.balanceCents(org.orgId)).toBe(20000);
    const attempts = await recharge.history(org.orgId);
    expect(attempts.map((a) => `${a.amount_cents}:${a.status}`).sort()).toEqual(['16000:paid', '20000:paid']);
    expect((await b.t.services.billingModule.accounts.reconcile(org.orgId)).problems).toEqual([]);
  });

  it('waits for 3-D Secure in pending_change, then applies; a declined card fails the change', async () => {
    const org = await b.org({ mode: 'prepaid' });
    await addCard(org, TEST_CARDS.requiresAction);
    const res = await put(org, settings);
    expect(res.body.auto_recharge).toMatchObject({
      configured: false,
      payment_status: 'action_required',
      pending_change: { request_id: 'recharge-0001', status: 'provisioning', threshold_cents: 5000 },
    });
    expect(res.body.action_url).toMatch(/\/authenticate\/pi_/);
    expect(await b.t.services.billingModule.recharge.check(org.orgId)).toBe('none');
    b.provider.authenticate(res.body.auto_recharge.payment_provider_payment_intent_id, true);
    expect(await b.t.services.billingModule.recharge.check(org.orgId)).toBe('completed');
    const done = await b.call('GET', '/v1/account/auto-recharge', org.token);
    expect(done.body.auto_recharge).toMatchObject({ configured: true, enabled: true, payment_status: 'paid', pending_change: null });
    expect(done.body.action_url).toBeNull();
    expect(await b.t.services.billingModule.accounts.balanceCents(org.orgId)).toBe(20000);

    const declined = await b.org({ mode: 'prepaid' });
    await addCard(declined, TEST_CARDS.declined);
    const failed = await put(declined, settings);
    expect(failed.body.auto_recharge).toMatchObject({
      configured: false,
      payment_status: 'failed',
      last_error_code: 'card_declined',
      pending_change: { status: 'failed', last_error_code: 'card_declined' },
    });
    expect(await b.t.services.billingModule.accounts.balanceCents(declined.orgId)).toBe(0);

    const outage = await b.org({ mode: 'prepaid' });
    await addCard(outage, TEST_CARDS.success);
    b.provider.failNext(1);
    const down = await put(outage, settings);
    expect([down.status, down.body.error]).toEqual([502, 'PAYMENT_PROVIDER_FAILED']);
    // The job sends the cut-off charge again under the same idempotency key.
    expect(await b.t.services.billingModule.recharge.check(outage.orgId)).toBe('completed');
    expect(await b.t.services.billingModule.accounts.balanceCents(outage.orgId)).toBe(20000);
  });
});
