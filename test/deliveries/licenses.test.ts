/**
 * Deliveries billed through billing's license-aware API, over HTTP (spec 2 License pricing, 8 billing
 * rules, 9 free refresh): a second delivery of an overlapping audience bills only the identities not
 * yet licensed and its quote reports them as already licensed; a refresh of licensed identities (other
 * fields, and after a new major data release) is free; prepaid credit burns down by exactly the charges
 * and the ledger reconciles to the cent; a large audience's quote reuses an earlier evaluation
 * (`cached`) or shows none (`unavailable`). A delivery accepted before a release switch fails, free.
 *
 * Prices (paygo terms, no discount): filter delivery 10 cents a member, 1 cent per identity field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCurrentRelease, pointerPath, releaseFilePath } from '../../src/graph/releases.ts';
import { createTestOrg, testApp, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { cond } from '../segments/setup.ts';
import { testGraph } from '../segments/graph.ts';
import { waitFor } from '../webhooks/helpers.ts';
import { setupDeliveries, type DeliveryTest } from './api-setup.ts';

let d: DeliveryTest;
let dataDir: string;
let paygo: TestOrg;
let tok: string;
let ca: Set<bigint>;
let tx: Set<bigint>;
/** Cents charged by the first test's two deliveries (the prepaid test reconciles them). */
let chargedCents = 0;

const GRANT_CENTS = 100_000_00;

beforeAll(async () => {
  // A private copy of the test graph: this file publishes a new major release into it.
  const g = await testGraph();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-licenses-'));
  fs.cpSync(path.join(g.dataDir, 'warehouse'), path.join(dataDir, 'warehouse'), { recursive: true });
  d = await setupDeliveries({ dataDir });
  paygo = await createTestOrg(d.t, { tier: 'paygo' });
  tok = await paygo.token();
  const { accounts } = d.t.services.billingModule;
  await accounts.setup(paygo.orgId, { mode: 'prepaid' });
  await accounts.grant(paygo.orgId, { kind: 'paid_commit', amountCents: GRANT_CENTS });
  ca = await d.g.keys(`state = 'CA'`);
  tx = await d.g.keys(`state = 'TX'`);
}, 180_000);
afterAll(async () => {
  await d?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function audience(filters: unknown[]): Promise<string> {
  const res = await d.call('POST', '/v1/segments', { name: 'seg', filters, create_audience: true }, tok);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.audience_id as string;
}
const quote = async (aud: string, body: Record<string, unknown> = {}) =>
  (await d.call('POST', `/v1/audiences/${aud}/deliveries/quote`, body, tok)).body;
async function deliver(aud: string, body: Record<string, unknown> = {}) {
  const res = await d.call('POST', `/v1/audiences/${aud}/deliveries`, body, tok);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  let last: any;
  await waitFor(async () => {
    last = (await d.call('GET', `/v1/audiences/${aud}/deliveries/${res.body.delivery_id}`, undefined, tok)).body;
    return last.status !== 'processing';
  }, 60_000);
  expect(last.status, JSON.stringify(last)).toBe('completed');
  return last;
}
async function settled() {
  const { database } = await testStores();
  return database.db
    .selectFrom('usage_ledger')
    .select(['id', 'kind', 'quantity', 'amount_cents', 'covered_cents', 'details'])
    .where('org_id', '=', paygo.orgId)
    .where('status', '=', 'settled')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
const shownCount = async (aud: string) => (await d.call('GET', `/v1/audiences/${aud}`, undefined, tok)).body.record_count as number;

describe('deliveries priced by licenses', () => {
  it('a second delivery of an overlapping audience bills only the new identities; its quote reports the licensed ones', async () => {
    const caAud = await audience([cond('state', '=', 'CA')]);
    const first = await quote(caAud, { field_list: ['age', 'first_name'] });
    const shownCa = await shownCount(caAud);
    // 10 cents a member + 1 cent for the one identity field; nothing licensed yet.
    expect(first.cost_estimate).toEqual({
      base_cost: (shownCa * 10) / 100,
      match_cost: 0,
      field_cost: shownCa / 100,
      destination_cost: 0,
      total_cost: (shownCa * 11) / 100,
      unit_price: 0.11,
      billing_count: shownCa,
    });
    expect(first.max_cost_estimate).toEqual(first.cost_estimate);
    expect(first.license_pricing).toEqual({ status: 'live', evaluated_at: d.clock.now().toISOString(), already_licensed_count: 0 });
    const a = await deliver(caAud, { field_list: ['age', 'first_name'] });
    // Every exported member is billed, never above the estimate shown (it priced the noised count).
    const aCents = Math.min(ca.size, shownCa) * 11;
    expect(a.cost).toBe(aCents / 100);

    d.clock.advance(1000);
    const both = await audience([cond('state', 'IN', ['CA', 'TX'])]);
    const q = await quote(both, { field_list: ['age', 'first_name'] });
    const shownBoth = await shownCount(both);
    // The licensed members are a graph-derived number too: shown through the privacy layer (its own
    // sticky noise), so close to the CA count, and the estimate bills the rest.
    expect(q.license_pricing.status).toBe('live');
    const licensed = q.license_pricing.already_licensed_count as number;
    expect(licensed).toBeGreaterThan(0);
    expect(Math.abs(licensed - ca.size)).toBeLessThanOrEqual(30);
    expect(q.max_cost_estimate).toMatchObject({ billing_count: shownBoth, total_cost: (shownBoth * 11) / 100 });
    expect(q.cost_estimate).toMatchObject({
      billing_count: shownBoth - licensed,
      total_cost: ((shownBoth - licensed) * 11) / 100,
      unit_price: 0.11,
    });

    const before = (await settled()).length;
    const b = await deliver(both, { field_list: ['age', 'first_name'], quote_id: q.quote_id });
    expect(b.estimated_cost).toBe(q.cost_estimate.total_cost);
    expect(b.output_record_count).toBe(ca.size + tx.size);
    // Only the TX members are new: the charge bills them, up to the estimate shown.
    const bCents = Math.min(tx.size, shownBoth - licensed) * 11;
    expect(b.cost).toBe(bCents / 100);
    chargedCents = aCents + bCents;
    const rows = (await settled()).slice(before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'audience_delivery.filter', quantity: tx.size, amount_cents: bCents, covered_cents: bCents });
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({
      identity_count: ca.size + tx.size,
      billable_count: tx.size,
      already_licensed_count: ca.size,
    });
  });

  it('a refresh of licensed identities is free: other fields, and after a new major data release', async () => {
    const caAud = await audience([cond('state', '=', 'CA')]);
    // Other fields (other content, so not an identical re-delivery): a new delivery, no charge.
    const refresh = await deliver(caAud, { field_list: ['age', 'state'] });
    expect(refresh).toMatchObject({ already_delivered: false, cost: 0, output_record_count: ca.size });

    // A delivery accepted before the release switch cannot export the release it names: it fails, free.
    await d.pauseWorker();
    let pending;
    try {
      pending = await d.call('POST', `/v1/audiences/${caAud}/deliveries`, { field_list: ['age', 'gender'] }, tok);
      expect(pending.status).toBe(202);
    } catch (error) {
      await d.resumeWorker();
      throw error;
    }
    // A new major release (the same persons) is published: the same request is new content, and free.
    const current = readCurrentRelease(dataDir)!;
    const file = `graph-2.0-licenses-test.duckdb`;
    fs.copyFileSync(releaseFilePath(dataDir, current), releaseFilePath(dataDir, { file }));
    fs.writeFileSync(
      `${pointerPath(dataDir)}.tmp`,
      JSON.stringify({ ...current, major: 2, minor: 0, file, as_of: new Date().toISOString() }),
    );
    fs.renameSync(`${pointerPath(dataDir)}.tmp`, pointerPath(dataDir));
    await d.t.services.warehouse.refresh();
    await d.resumeWorker();
    let failed: any;
    await waitFor(async () => {
      failed = (await d.call('GET', `/v1/audiences/${caAud}/deliveries/${pending.body.delivery_id}`, undefined, tok)).body;
      return failed.status !== 'processing';
    }, 60_000);
    expect(failed).toMatchObject({ status: 'failed', cost: 0, data_release: { major: 1, minor: 0 } });
    expect(failed.failure_reason).toMatch(/data release changed from 1\.0 to 2\.0/);
    const q = await quote(caAud, { field_list: ['age', 'state'] });
    expect(q.cost_estimate.total_cost).toBeLessThan(q.max_cost_estimate.total_cost);
    const after = await deliver(caAud, { field_list: ['age', 'state'] });
    expect(after).toMatchObject({ already_delivered: false, cost: 0, output_record_count: ca.size, data_release: { major: 2, minor: 0 } });
    expect(after.delivery_id).not.toBe(refresh.delivery_id);
  });

  it('prepaid credit burns down by exactly the charges and the ledger reconciles to the cent', async () => {
    const rows = await settled();
    const charged = rows.reduce((s, r) => s + r.amount_cents, 0);
    expect(charged).toBe(chargedCents);
    const credits = (await d.call('GET', '/v1/account/credits', undefined, await paygo.token(['account']))).body;
    expect(credits.balances).toMatchObject([
      { kind: 'paid_commit', remaining_cents: GRANT_CENTS - charged, access_schedule: [{ amount_cents: GRANT_CENTS }] },
    ]);
    const rec = await d.t.services.billingModule.accounts.reconcile(paygo.orgId);
    expect(rec).toMatchObject({ problems: [], charged_cents: charged, covered_cents: charged, invoiced_cents: 0, drawn_cents: charged });
  });

  it('a prepaid payer whose balance is spent can still refresh licensed identities: the reservation holds only the unlicensed ones', async () => {
    const tight = await createTestOrg(d.t, { tier: 'paygo' });
    const t2 = await tight.token();
    const { accounts } = d.t.services.billingModule;
    await accounts.setup(tight.orgId, { mode: 'prepaid' });
    const make = async (filters: unknown[]) =>
      (await d.call('POST', '/v1/segments', { name: 'seg', filters, create_audience: true }, t2)).body.audience_id as string;
    const caAud = await make([cond('state', '=', 'CA')]);
    // Exactly what the first delivery is charged: every member, up to the estimate shown.
    const firstCents = Math.min(ca.size, (await d.call('GET', `/v1/audiences/${caAud}`, undefined, t2)).body.record_count as number) * 10;
    await accounts.grant(tight.orgId, { kind: 'paid_commit', amountCents: firstCents });
    const go = async (aud: string, body: object) => {
      const res = await d.call('POST', `/v1/audiences/${aud}/deliveries`, body, t2);
      if (res.status !== 202) return res;
      let last: any;
      await waitFor(async () => {
        last = (await d.call('GET', `/v1/audiences/${aud}/deliveries/${res.body.delivery_id}`, undefined, t2)).body;
        return last.status !== 'processing';
      }, 60_000);
      return { status: 202, body: last };
    };
    expect((await go(caAud, { field_list: ['age', 'state'] })).body).toMatchObject({ status: 'completed', cost: firstCents / 100 });
    // The balance is spent; the licensed members are delivered again (other fields) free.
    expect((await go(caAud, { field_list: ['age'] })).body).toMatchObject({ status: 'completed', cost: 0 });
    // New identities are refused before any work (402 with the shown estimate).
    const txAud = await make([cond('state', '=', 'TX')]);
    const refused = await go(txAud, { field_list: ['age'] });
    expect([refused.status, refused.body.error, refused.body.available_balance]).toEqual([402, 'BILLING_INSUFFICIENT_BALANCE', 0]);
    expect((await d.t.services.billingModule.accounts.reconcile(tight.orgId)).problems).toEqual([]);
  });

  it('above the live lookup limit a quote reuses a recent evaluation (cached), else shows none (unavailable)', async () => {
    const small = await testApp({
      clock: d.clock,
      config: { dataDir, billing: { ...d.t.config.billing, licenseLookupMaxIdentities: 10 } },
    });
    try {
      const call = async (url: string, body: object) =>
        (await small.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${tok}` }, payload: body })).json();
      const both = await audience([cond('state', 'IN', ['CA', 'TX'])]);
      const live = await quote(both, {});
      expect(live.license_pricing.status).toBe('live');
      d.clock.advance(60_000);
      // Counts reused (as shown then), dollars recomputed with today's terms and fields.
      const cached = await call(`/v1/audiences/${both}/deliveries/quote`, { field_list: ['age', 'first_name'] });
      expect(cached.license_pricing).toEqual({ ...live.license_pricing, status: 'cached' });
      expect(cached.cost_estimate.billing_count).toBe(live.cost_estimate.billing_count);
      expect(cached.cost_estimate.unit_price).toBe(0.11);
      // A fresh audience has no earlier evaluation: the estimate is the maximum.
      const fresh = await audience([cond('state', '=', 'NY')]);
      const none = await call(`/v1/audiences/${fresh}/deliveries/quote`, {});
      expect(none.license_pricing).toEqual({ status: 'unavailable', evaluated_at: null, already_licensed_count: null });
      expect(none.cost_estimate).toEqual(none.max_cost_estimate);
    } finally {
      await small.app.close();
    }
  });
});
