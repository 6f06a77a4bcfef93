/**
 * Delivery billing through billing's public API (quote, reserve, charge, release) with its effects read
 * over HTTP: license dedupe and free refresh, license expiry, burn-down order across overlapping
 * schedules, expiry of grants, 402 before any work, one charge per key under racing calls, parent
 * billing, and a 1,000-operation random run that reconciles to the cent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStores } from '../helpers/stores.ts';
import { prng, range, setupBilling, type BillingTest } from './setup.ts';

let b: BillingTest;
beforeAll(async () => {
  b = await setupBilling();
}, 60_000);
afterAll(async () => b?.close());

const DAY = 86_400_000;
const delivery = (orgId: string, identities: number[], extra: object = {}) => ({
  orgId,
  audienceSubtype: 'filter' as const,
  destination: 'download',
  fields: [] as string[],
  identities,
  ...extra,
});
const charge = async (input: Parameters<BillingTest['t']['services']['billing']['chargeDelivery']>[1]) => {
  const { database } = await testStores();
  return database.db.transaction().execute((trx) => b.t.services.billing.chargeDelivery(trx, input));
};

describe('quotes and licenses', () => {
  it('prices per distinct identity with destination and field rates, and reports license pricing', async () => {
    const org = await b.org({ tier: 'paygo' });
    const billing = b.t.services.billing;
    // paygo: filter 10 + sftp 1 + 2 fields x 1 = 13 cents per record.
    const q = await billing.quoteDelivery(
      delivery(org.orgId, [...range(1, 100), 1, 2], { destination: 'sftp', fields: ['city', 'state'] }),
    );
    expect(q.identity_count).toBe(100);
    expect(q.cents).toEqual({ estimate: 1300, max: 1300 });
    expect(q.cost_estimate).toEqual({
      base_cost: 10,
      match_cost: 0,
      field_cost: 2,
      destination_cost: 1,
      total_cost: 13,
      unit_price: 0.13,
      billing_count: 100,
    });
    expect(q.license_pricing).toEqual({ status: 'live', evaluated_at: b.clock.now().toISOString(), already_licensed_count: 0 });

    const first = await charge({ ...delivery(org.orgId, range(1, 100)), idempotencyKey: 'd1' });
    expect(first).toMatchObject({ charged: true, cents: 1000, billable_count: 100, already_licensed_count: 0 });
    // Overlap: 51..150 bills only the 50 new identities.
    const second = await charge({ ...delivery(org.orgId, range(51, 150)), idempotencyKey: 'd2' });
    expect(second).toMatchObject({ charged: true, cents: 500, billable_count: 50, already_licensed_count: 50 });
    // Re-delivery under the same key charges nothing more.
    expect(await charge({ ...delivery(org.orgId, range(51, 150)), idempotencyKey: 'd2' })).toMatchObject({ charged: false, cents: 500 });

    const live = await billing.quoteDelivery(delivery(org.orgId, range(1, 160)));
    expect(live.license_pricing.already_licensed_count).toBe(150);
    expect(live.cents).toEqual({ estimate: 100, max: 1600 });
    const unavailable = await billing.quoteDelivery({ ...delivery(org.orgId, []), identities: undefined, identityCount: 160 });
    expect(unavailable.license_pricing).toEqual({ status: 'unavailable', evaluated_at: null, already_licensed_count: null });
    expect(unavailable.cost_estimate).toEqual(unavailable.max_cost_estimate);
    const cached = await billing.quoteDelivery({
      ...delivery(org.orgId, range(1, 160)),
      license: { status: 'cached', alreadyLicensedCount: 150, evaluatedAt: new Date('2026-03-01T00:00:00Z') },
    });
    expect(cached.license_pricing).toEqual({ status: 'cached', evaluated_at: '2026-03-01T00:00:00.000Z', already_licensed_count: 150 });
    expect(cached.cost_estimate.total_cost).toBe(1);

    // Free refresh of licensed identities (also after a new major release); the licenses expire after 12 months.
    expect(await charge({ ...delivery(org.orgId, range(1, 150)), idempotencyKey: 'refresh' })).toMatchObject({
      charged: true,
      cents: 0,
      billable_count: 0,
    });
    b.clock.advance(366 * DAY);
    expect(await charge({ ...delivery(org.orgId, range(1, 10)), idempotencyKey: 'after-expiry' })).toMatchObject({
      cents: 100,
      billable_count: 10,
    });
    b.clock.set('2026-03-10T12:00:00.000Z');

    // Another organization licenses the same persons separately.
    const other = await b.org({ tier: 'paygo' });
    expect(await charge({ ...delivery(other.orgId, range(1, 100)), idempotencyKey: 'd1' })).toMatchObject({
      cents: 1000,
      billable_count: 100,
    });
  });

  it('bills a file-match run once, on its first delivery', async () => {
    const org = await b.org({ tier: 'paygo' });
    const fileMatch = { runId: 'seg_run1', matchedCount: 400 };
    expect((await b.t.services.billing.quoteDelivery(delivery(org.orgId, range(1, 10), { fileMatch }))).cost_estimate.match_cost).toBe(8);
    expect(await charge({ ...delivery(org.orgId, range(1, 10), { fileMatch }), idempotencyKey: 'f1' })).toMatchObject({
      cents: 900,
      match_cents: 800,
    });
    expect(await charge({ ...delivery(org.orgId, range(11, 20), { fileMatch }), idempotencyKey: 'f2' })).toMatchObject({
      cents: 100,
      match_cents: 0,
    });
    expect((await b.t.services.billing.quoteDelivery(delivery(org.orgId, range(1, 10), { fileMatch }))).cost_estimate.match_cost).toBe(0);
    const usage = await b.call('GET', '/v1/account/usage', org.token);
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toEqual([
      { kind: 'audience_delivery.filter', events: 2, quantity: 20, amount_cents: 200, amount: 2, covered_cents: 0, invoiced_cents: 200 },
      { kind: 'match.file', events: 1, quantity: 400, amount_cents: 800, amount: 8, covered_cents: 0, invoiced_cents: 800 },
    ]);
    expect(usage.body).toMatchObject({
      total_cents: 1000,
      invoiced_cents: 1000,
      period_start: '2026-03-10T12:00:00.000Z',
      period_end: '2026-04-01T00:00:00.000Z',
    });
  });

  it('racing charges settle once: same key once, overlapping keys license each identity once', async () => {
    const org = await b.org({ tier: 'paygo' });
    const same = await Promise.all([1, 2, 3].map(() => charge({ ...delivery(org.orgId, range(1, 50)), idempotencyKey: 'race' })));
    expect(same.filter((r) => r.charged)).toHaveLength(1);
    expect(same.map((r) => r.cents)).toEqual([500, 500, 500]);
    const overlap = await Promise.all([
      charge({ ...delivery(org.orgId, range(100, 200)), idempotencyKey: 'a' }),
      charge({ ...delivery(org.orgId, range(150, 250)), idempotencyKey: 'b' }),
    ]);
    expect(overlap[0]!.billable_count + overlap[1]!.billable_count).toBe(151);
    const rows = await b.t.services.billing.ledger(org.orgId);
    expect(rows.filter((r) => r.status === 'settled').reduce((s, r) => s + r.amount_cents, 0)).toBe(500 + 1510);
  });
});

describe('credits and commits', () => {
  it('burns down by priority, promotional first, narrowest scope, earliest expiry; expired grants are skipped', async () => {
    const org = await b.org({ tier: 'paygo', mode: 'prepaid' });
    const acc = b.t.services.billingModule.accounts;
    const now = b.clock.now();
    const at = (days: number) => new Date(now.getTime() + days * DAY);
    const promoAll = await acc.grant(org.orgId, { kind: 'promotional_credit', amountCents: 300, endingBefore: at(30) });
    const paidDelivery = await acc.grant(org.orgId, {
      kind: 'paid_commit',
      amountCents: 400,
      productTags: ['delivery'],
      endingBefore: at(60),
    });
    const paidAllSoon = await acc.grant(org.orgId, { kind: 'paid_commit', amountCents: 500, endingBefore: at(5) });
    const matchOnly = await acc.grant(org.orgId, {
      kind: 'promotional_credit',
      amountCents: 900,
      productIds: ['match'],
      endingBefore: at(30),
    });
    const later = await acc.grant(org.orgId, {
      kind: 'promotional_credit',
      amountCents: 700,
      priority: 10,
      startingAt: at(10),
      endingBefore: at(40),
    });

    expect((await charge({ ...delivery(org.orgId, range(1, 100)), idempotencyKey: 'burn' })).cents).toBe(1000);
    const credits = await b.call('GET', '/v1/account/credits', org.token);
    expect(credits.status).toBe(200);
    const left = Object.fromEntries(credits.body.balances.map((x: any) => [x.id, x.remaining_cents]));
    expect(left).toEqual({ [promoAll.id]: 0, [paidDelivery.id]: 0, [paidAllSoon.id]: 200, [matchOnly.id]: 900, [later.id]: 700 });
    expect(credits.body.next_expiry_at).toBe(at(5).toISOString());
    expect(credits.body.balances.find((x: any) => x.id === later.id)).toMatchObject({
      active: false,
      kind: 'promotional_credit',
      access_schedule: [{ amount_cents: 700, starting_at: at(10).toISOString(), ending_before: at(40).toISOString() }],
    });

    // Day 11: the soon-expiring commit is gone; the later credit (priority 10) burns first.
    b.clock.set(at(11));
    expect((await charge({ ...delivery(org.orgId, range(101, 150)), idempotencyKey: 'burn2' })).cents).toBe(500);
    const after = Object.fromEntries(
      (await b.call('GET', '/v1/account/credits', await org.newToken())).body.balances.map((x: any) => [x.id, x.remaining_cents]),
    );
    expect(after).toMatchObject({ [paidAllSoon.id]: 200, [later.id]: 200, [matchOnly.id]: 900 });

    // Prepaid: a reservation beyond the spendable balance (200 from `later`) is 402 and writes nothing.
    const before = (await b.t.services.billing.ledger(org.orgId)).length;
    await expect(
      b.t.services.billing.reserveDelivery({ ...delivery(org.orgId, range(200, 230)), idempotencyKey: 'too-much' }),
    ).rejects.toMatchObject({
      code: 'BILLING_INSUFFICIENT_BALANCE',
      details: { amount_needed: 1.1, required_amount: 3.1, available_balance: 2 },
    });
    expect(await b.t.services.billing.ledger(org.orgId)).toHaveLength(before);
    const r = await b.t.services.billing.reserveDelivery({ ...delivery(org.orgId, range(200, 219)), idempotencyKey: 'fits' });
    expect(r.ceilingCents).toBe(200);
    // The reservation holds the balance: nothing more fits until it is released.
    await expect(b.t.services.billing.reserveDelivery({ ...delivery(org.orgId, [300]), idempotencyKey: 'held' })).rejects.toMatchObject({
      code: 'BILLING_INSUFFICIENT_BALANCE',
    });
    await b.t.services.billing.releaseDelivery(r);
    expect((await b.t.services.billing.reserveDelivery({ ...delivery(org.orgId, [300]), idempotencyKey: 'held' })).ceilingCents).toBe(10);
    b.clock.set('2026-03-10T12:00:00.000Z');
  });

  it('pools a parent-billed child on its parent; the child cannot inspect pooled balances; isolation between organizations', async () => {
    const parent = await b.org({ tier: 'growth', mode: 'prepaid' });
    const child = await b.org({ tier: 'pilot', parent: parent.orgId });
    await b.t.services.billingModule.accounts.grant(parent.orgId, { kind: 'paid_commit', amountCents: 10_000 });
    const denied = await b.call('GET', '/v1/account/credits', child.token);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'PARENT_BILLED_ORGANIZATION', request_id: expect.any(String) });
    // The child is priced on the parent's contract (growth: filter 6 cents, 5% discount) and draws the parent's commit.
    expect((await charge({ ...delivery(child.orgId, range(1, 100)), idempotencyKey: 'c1' })).cents).toBe(570);
    const credits = await b.call('GET', '/v1/account/credits', parent.token);
    expect(credits.body.balances[0].remaining_cents).toBe(9430);
    const stranger = await b.org();
    expect((await b.call('GET', '/v1/account/credits', stranger.token)).body.balances).toEqual([]);
    expect((await b.t.services.billingModule.accounts.reconcile(parent.orgId)).problems).toEqual([]);
  });

  it('reconciles to the cent after 1,000 random operations', async () => {
    const org = await b.org({ tier: 'scale', mode: 'prepaid' });
    const acc = b.t.services.billingModule.accounts;
    const billing = b.t.services.billing;
    const rnd = prng(16);
    const pick = (n: number) => Math.floor(rnd() * n);
    for (let i = 0; i < 1000; i += 1) {
      const op = pick(10);
      if (op === 0) {
        await acc.grant(org.orgId, {
          kind: rnd() < 0.5 ? 'paid_commit' : 'promotional_credit',
          amountCents: 1 + pick(5000),
          priority: pick(3),
          productTags: rnd() < 0.3 ? ['delivery'] : [],
          endingBefore: new Date(b.clock.now().getTime() + (1 + pick(20)) * DAY),
        });
      } else if (op < 5) {
        const start = pick(5000);
        await charge({ ...delivery(org.orgId, range(start, start + pick(30))), idempotencyKey: `k${pick(400)}` }).catch(() => undefined);
      } else if (op < 8) {
        const start = pick(5000);
        try {
          const r = await billing.reserveDelivery({ ...delivery(org.orgId, range(start, start + pick(20))), idempotencyKey: `r${i}` });
          if (rnd() < 0.5) await billing.releaseDelivery(r);
          else await charge({ ...delivery(org.orgId, range(start, start + pick(20))), idempotencyKey: `r${i}` });
        } catch (error) {
          expect(error).toMatchObject({ code: 'BILLING_INSUFFICIENT_BALANCE' });
        }
      } else {
        b.clock.advance(pick(6) * 3_600_000);
      }
    }
    const rec = await acc.reconcile(org.orgId);
    expect(rec.problems).toEqual([]);
    expect(rec.drawn_cents).toBe(rec.covered_cents);
    const draws = await (
      await testStores()
    ).database.db
      .selectFrom('credit_draws')
      .select((eb) => eb.fn.sum<string>('amount_cents').as('s'))
      .where('org_id', '=', org.orgId)
      .executeTakeFirst();
    expect(Number(draws?.s ?? 0)).toBe(rec.granted_cents - rec.remaining_cents);
    b.clock.set('2026-03-10T12:00:00.000Z');
  }, 600_000);
});
