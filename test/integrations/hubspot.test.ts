/**
 * HubSpot connections and batch-enrichment runs end to end over HTTP, against the loopback HubSpot
 * stand-in: OAuth connect, sealed tokens, paged contact reads, matching, write-back with a failed
 * contact, token expiry and refresh, 429 answers, billing once, cancel, both disconnect policies and a
 * reconnect of the same HubSpot account to another organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTokenBox, tokenAad } from '../../src/modules/integrations/token-box.ts';
import { createServerKeys } from '../../src/db/server-secrets.ts';
import { testStores } from '../helpers/stores.ts';
import { NOBODY, pickPersons, type Row } from '../match-api/setup.ts';
import { contactOf, expectEquations, setup, type IntegrationTest } from './setup.ts';

let k: IntegrationTest;
let people: Row[];

beforeAll(async () => {
  k = await setup();
  people = await pickPersons(k, 110);
}, 180_000);
afterAll(async () => k?.close());

const nobody = (i: number) => ({ firstname: NOBODY.first_name, lastname: NOBODY.last_name, email: `zq.nobody.${i}@examplemail.com` });

describe('connections', () => {
  it('connects through HubSpot OAuth, stores tokens sealed, lists, and refuses a second connection', async () => {
    const { org, token } = await k.newOrg();
    const hubId = k.hs.addHub('acme.hubspot.com', []);
    const made = await k.connect(token, hubId);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      connection_id: expect.stringMatching(/^con_[A-Za-z0-9]{20}$/),
      provider: 'hubspot',
      provider_account_id: String(hubId),
      display_name: 'acme.hubspot.com',
      status: 'connected',
      created_at: k.clock.now().toISOString(),
    });
    const row = await (
      await testStores()
    ).database.db
      .selectFrom('integration_connections')
      .selectAll()
      .where('id', '=', made.body.connection_id)
      .executeTakeFirstOrThrow();
    expect(row.access_token).toMatch(/^itk1\./);
    expect(row.refresh_token).toMatch(/^itk1\./);
    expect(row.org_id).toBe(org.orgId);
    // Sealed to its row and column: the access token opens; moved to another row or column, it does not.
    const box = createTokenBox(createServerKeys((await testStores()).database, k.clock));
    expect(await box.open(row.access_token!, tokenAad(row.id, 'access'))).toMatch(/^[0-9a-f]{36}$/);
    await expect(box.open(row.access_token!, tokenAad('con_other', 'access'))).rejects.toThrow();
    await expect(box.open(row.access_token!, tokenAad(row.id, 'refresh'))).rejects.toThrow();
    const list = await k.as(token)('GET', '/v1/connections');
    expect(list.body).toEqual({ connections: [made.body] });

    const again = await k.connect(token, k.hs.addHub('other.hubspot.com', []));
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('CONNECTION_EXISTS');
  });

  it('refuses unknown, reused or foreign states, bad codes, members and missing scopes, changing nothing', async () => {
    const { org, token } = await k.newOrg();
    const call = k.as(token);
    const hubId = k.hs.addHub('states.hubspot.com', []);
    const never = await call('POST', '/v1/connections/hubspot', { code: k.hs.approve(hubId), state: 'never-issued' });
    expect(never.status).toBe(400);
    expect(never.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');
    expect(never.body.request_id).toBeTruthy();

    const start = await call('POST', '/v1/connections/hubspot/authorize');
    const badCode = await call('POST', '/v1/connections/hubspot', { code: 'not-a-code', state: start.body.state });
    expect(badCode.status).toBe(400);
    expect(badCode.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');
    // The state was used once: a second try with a good code is refused too.
    const reused = await call('POST', '/v1/connections/hubspot', { code: k.hs.approve(hubId), state: start.body.state });
    expect(reused.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');

    const other = await k.newOrg();
    const foreign = await k.as(other.token)('POST', '/v1/connections/hubspot/authorize');
    const cross = await call('POST', '/v1/connections/hubspot', { code: k.hs.approve(hubId), state: foreign.body.state });
    expect(cross.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');

    const expiring = await call('POST', '/v1/connections/hubspot/authorize');
    (k.clock as ManualClock).advance(601_000);
    const late = await call('POST', '/v1/connections/hubspot', { code: k.hs.approve(hubId), state: expiring.body.state });
    expect(late.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');

    const member = await org.token(['account'], await org.addUser('member'));
    expect((await k.as(member)('POST', '/v1/connections/hubspot/authorize')).body.error).toBe('OWNER_OR_ADMIN_REQUIRED');
    const noAccount = await org.token(['discovery', 'creator']);
    const scoped = await k.as(noAccount)('DELETE', '/v1/connections/hubspot', { app_data_policy: 'retain' });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toBe('SCOPE_REQUIRED');
    expect((await call('POST', '/v1/connections/salesforce/authorize')).body.error).toBe('PROVIDER_NOT_AVAILABLE');
    const bad = await call('DELETE', '/v1/connections/hubspot', { app_data_policy: 'forget' });
    expect(bad.status).toBe(400);
    expect((await call('DELETE', '/v1/connections/hubspot', { app_data_policy: 'retain' })).body.error).toBe('CONNECTION_NOT_FOUND');
    expect((await call('GET', '/v1/connections')).body).toEqual({ connections: [] });
  });
});

describe('batch enrichment runs', () => {
  it('pulls every page, matches, writes back, counts a failed and an unchanged contact, and bills once', async () => {
    const { org, token } = await k.newOrg('paygo');
    const call = k.as(token);
    const persons = people.slice(0, 105);
    const hubId = k.hs.addHub('enrich.hubspot.com', [
      ...persons.map((p) => contactOf(p)),
      nobody(1),
      nobody(2),
      nobody(3),
      { firstname: null, lastname: null, email: null },
      {},
    ]);
    const hub = k.hs.hub(hubId);
    // One contact already holds the value, one is locked at HubSpot.
    hub.properties.add('ads_age');
    hub.contacts[0]!.properties.ads_age = String(persons[0]!.age);
    k.hs.rejectIds.add(hub.contacts[1]!.id);
    expect((await k.connect(token, hubId)).status).toBe(201);

    const created = await call('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] });
    expect(created.status).toBe(202);
    expect(Object.keys(created.body).sort()).toEqual([
      'billing_source',
      'boundary_at',
      'completed_at',
      'connection_display_name',
      'connection_id',
      'counts',
      'created_at',
      'customer_boundary',
      'data_flow',
      'failure_code',
      'failure_message',
      'kind',
      'provider',
      'purpose',
      'run_id',
      'selected_fields',
      'status',
      'updated_at',
    ]);
    expect(created.body).toMatchObject({
      run_id: expect.stringMatching(/^ir_[A-Za-z0-9_-]{40}$/),
      provider: 'hubspot',
      connection_display_name: 'enrich.hubspot.com',
      kind: 'batch_enrichment',
      data_flow: 'round_trip',
      purpose: 'enrichment',
      status: 'created',
      billing_source: 'native',
      customer_boundary: 'provider_writeback',
      counts: { input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 },
      selected_fields: ['age'],
      boundary_at: null,
      completed_at: null,
    });

    const run = await k.runJob(token, created.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.counts).toEqual({ input: 110, matched: 105, delivered: 104, applied: 103, unchanged: 1, skipped: 0, failed: 1 });
    expectEquations(run);
    expect(run.boundary_at).toBe(k.clock.now().toISOString());
    expect(k.hs.log.filter((l) => l === 'GET /crm/v3/objects/contacts').length).toBeGreaterThanOrEqual(2);
    for (const [i, p] of persons.entries()) if (i !== 1) expect(hub.contacts[i]!.properties.ads_age).toBe(String(p.age));
    expect(hub.contacts[1]!.properties.ads_age).toBeUndefined();

    const ledger = (await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'));
    expect(ledger.map((r) => [r.kind, r.status, r.quantity, r.amount_cents]).sort()).toEqual([
      ['integration.enrichment_field', 'settled', 103, 103],
      ['integration.match', 'settled', 105, 525],
    ]);
    // The job delivered again (a retry) changes nothing and charges nothing more.
    expect(await k.events(run.run_id)).toEqual([
      {
        type: 'integration_run.completed',
        data: {
          status: 'completed',
          run_id: run.run_id,
          provider: 'hubspot',
          connection_id: run.connection_id,
          kind: 'batch_enrichment',
          billing_source: 'native',
          counts: run.counts,
          failure_code: null,
          failure_message: null,
          completed_at: run.completed_at,
        },
      },
    ]);
    const replay = await k.runJob(token, created.body.run_id);
    expect(replay.counts).toEqual(run.counts);
    expect(await k.events(run.run_id)).toHaveLength(1);
    expect((await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'))).toHaveLength(2);

    (k.clock as ManualClock).advance(1000);
    // A second run: everything is unchanged now, nothing is written, only the match is billed.
    const second = await k.runJob(
      token,
      (await call('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })).body.run_id,
    );
    expect(second.counts).toEqual({ input: 110, matched: 105, delivered: 1, applied: 0, unchanged: 104, skipped: 0, failed: 1 });
    expectEquations(second);

    // Listing pages newest first; another organization sees none of it.
    const page1 = await call('GET', '/v1/integration-runs?limit=1');
    expect(page1.body.runs.map((r: any) => r.run_id)).toEqual([second.run_id]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await call('GET', `/v1/integration-runs?limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toEqual({ runs: [run], has_more: false, next_cursor: null });
    const stranger = await k.newOrg();
    expect((await k.as(stranger.token)('GET', `/v1/integration-runs/${run.run_id}`)).status).toBe(404);
    expect((await k.as(stranger.token)('GET', '/v1/integration-runs')).body).toEqual({ runs: [], has_more: false, next_cursor: null });
  }, 120_000);

  it('is not billed with a partner billing source, and refreshes an expired token', async () => {
    const { org, token } = await k.newOrg('paygo');
    const hubId = k.hs.addHub(
      'partner.hubspot.com',
      people.slice(0, 5).map((p) => contactOf(p)),
    );
    await k.connect(token, hubId);
    const refreshes = k.hs.refreshes;
    k.hs.expireAccessTokens();
    const created = await k.as(token)('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'batch_enrichment',
      selected_fields: ['age'],
      billing_source: 'acme_platform',
    });
    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({
      status: 'completed',
      billing_source: 'acme_platform',
      counts: { input: 5, matched: 5, applied: 5, delivered: 5 },
    });
    expectEquations(run);
    expect(k.hs.refreshes).toBe(refreshes + 1);
    expect((await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'))).toEqual([]);

    // Past its lifetime the token is refreshed before use (no 401 first).
    (k.clock as ManualClock).advance(31 * 60_000);
    const again = await k.runJob(
      token,
      (
        await k.as(token)('POST', '/v1/integration-runs', {
          provider: 'hubspot',
          kind: 'batch_enrichment',
          selected_fields: ['age'],
          billing_source: 'acme_platform',
        })
      ).body.run_id,
    );
    expect(again.status).toBe('completed');
    expect(k.hs.refreshes).toBe(refreshes + 2);
  }, 60_000);

  it('fails with PROVIDER_UNAUTHORIZED when HubSpot refuses the refresh (the customer must reconnect)', async () => {
    const { token } = await k.newOrg();
    await k.connect(
      token,
      k.hs.addHub(
        'uninstalled.hubspot.com',
        people.slice(0, 2).map((p) => contactOf(p)),
      ),
    );
    k.hs.expireAccessTokens();
    k.hs.forgetRefreshTokens();
    const run = await k.runJob(
      token,
      (await k.as(token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })).body
        .run_id,
    );
    expect(run).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAUTHORIZED', counts: { input: 0, matched: 0 } });
    expect(run.failure_message).toMatch(/refresh answered 400/);
    expectEquations(run);
  });

  it('waits out 429 answers, and fails with PROVIDER_RATE_LIMITED when they do not stop (nothing billed)', async () => {
    const { org, token } = await k.newOrg('paygo');
    await k.connect(
      token,
      k.hs.addHub(
        'busy.hubspot.com',
        people.slice(0, 3).map((p) => contactOf(p)),
      ),
    );
    const start = () =>
      k.as(token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] });
    k.hs.rateLimitNext(2, 1);
    const ok = await k.runJob(token, (await start()).body.run_id);
    expect(ok.status).toBe('completed');
    expect(ok.counts.applied).toBe(3);
    k.hs.rateLimitNext(50, 1);
    const limited = await k.runJob(token, (await start()).body.run_id);
    k.hs.rateLimitNext(0);
    expect(limited).toMatchObject({
      status: 'failed',
      failure_code: 'PROVIDER_RATE_LIMITED',
      completed_at: expect.any(String),
      boundary_at: null,
    });
    expect(limited.failure_message).toMatch(/429/);
    expect(await k.events(limited.run_id)).toEqual([
      {
        type: 'integration_run.failed',
        data: expect.objectContaining({ status: 'failed', failure_code: 'PROVIDER_RATE_LIMITED', counts: limited.counts }),
      },
    ]);
    expectEquations(limited);
    const rows = (await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'));
    expect(rows.filter((r) => r.status !== 'settled')).toEqual([]);
    expect(rows).toHaveLength(2); // the first run's two rows only
  }, 60_000);

  it('cancels created and processing runs (nothing written) and refuses to cancel a finished run', async () => {
    const { token } = await k.newOrg();
    const call = k.as(token);
    const hubId = k.hs.addHub(
      'cancel.hubspot.com',
      people.slice(0, 3).map((p) => contactOf(p)),
    );
    await k.connect(token, hubId);
    const start = () => call('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] });
    const created = (await start()).body;
    const cancelled = await call('POST', `/v1/integration-runs/${created.run_id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', completed_at: expect.any(String) });
    expect((await k.runJob(token, created.run_id)).status).toBe('cancelled');

    // A processing run: HubSpot holds the first page back (429, Retry-After 1 s) while the cancel arrives.
    k.hs.rateLimitNext(1, 1);
    const second = (await start()).body;
    const running = k.t.services.integrations.runner.execute(second.run_id);
    for (let i = 0; i < 50 && (await call('GET', `/v1/integration-runs/${second.run_id}`)).body.status !== 'processing'; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await call('POST', `/v1/integration-runs/${second.run_id}/cancel`)).status).toBe(200);
    await running;
    const after = (await call('GET', `/v1/integration-runs/${second.run_id}`)).body;
    expect(after.status).toBe('cancelled');
    expect(await k.events(after.run_id)).toEqual([]);
    expectEquations(after);
    expect(k.hs.hub(hubId).contacts.every((c) => c.properties.ads_age === undefined)).toBe(true);

    const done = await k.runJob(token, (await start()).body.run_id);
    const refused = await call('POST', `/v1/integration-runs/${done.run_id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('INVALID_STATUS_TRANSITION');
    expect((await call('POST', '/v1/integration-runs/ir_nope/cancel')).status).toBe(404);
  }, 60_000);

  it('rejects bad run requests with the envelope and creates nothing', async () => {
    const { token } = await k.newOrg();
    const call = k.as(token);
    expect(
      (await call('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })).body.error,
    ).toBe('CONNECTION_NOT_FOUND');
    await k.connect(token, k.hs.addHub('bad.hubspot.com', []));
    const unknown = await call('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'batch_enrichment',
      selected_fields: ['shoe_size'],
    });
    expect(unknown.body.error).toBe('UNKNOWN_FIELD');
    for (const body of [
      { provider: 'hubspot', kind: 'reverse_etl', selected_fields: ['age'] },
      { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: [] },
      { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'], extra: 1 },
    ]) {
      const res = await call('POST', '/v1/integration-runs', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBeTruthy();
    }
    expect((await call('GET', '/v1/integration-runs')).body.runs).toEqual([]);
  });
});

describe('disconnect', () => {
  it('remove: a failed cleanup leaves the connection; a good one removes the properties; the account then connects elsewhere', async () => {
    const a = await k.newOrg();
    const hubId = k.hs.addHub(
      'move.hubspot.com',
      people.slice(0, 2).map((p) => contactOf(p)),
    );
    const first = (await k.connect(a.token, hubId)).body;
    const run = await k.runJob(
      a.token,
      (await k.as(a.token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] }))
        .body.run_id,
    );
    expect(run.counts.applied).toBe(2);
    expect(k.hs.hub(hubId).properties.has('ads_age')).toBe(true);

    const b = await k.newOrg();
    const taken = await k.connect(b.token, hubId);
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('CONNECTION_ACCOUNT_IN_USE');

    k.hs.failPropertyDeletes = true;
    const failed = await k.as(a.token)('DELETE', '/v1/connections/hubspot', { app_data_policy: 'remove' });
    k.hs.failPropertyDeletes = false;
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('PROVIDER_CLEANUP_FAILED');
    expect((await k.as(a.token)('GET', '/v1/connections')).body.connections).toHaveLength(1);

    const removed = await k.as(a.token)('DELETE', '/v1/connections/hubspot', { app_data_policy: 'remove' });
    expect(removed).toEqual({ status: 200, body: { disconnected: true } });
    expect(k.hs.hub(hubId).properties.has('ads_age')).toBe(false);
    expect(k.hs.hub(hubId).contacts.every((c) => c.properties.ads_age === undefined)).toBe(true);
    const row = await (
      await testStores()
    ).database.db
      .selectFrom('integration_connections')
      .selectAll()
      .where('id', '=', first.connection_id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'disconnected', access_token: null, refresh_token: null, app_data_policy: 'remove' });
    expect(k.hs.revoked.length).toBeGreaterThan(0);

    const moved = await k.connect(b.token, hubId);
    expect(moved.status).toBe(201);
    expect(moved.body.connection_id).not.toBe(first.connection_id);
    // History stays with the first organization.
    expect((await k.as(a.token)('GET', `/v1/integration-runs/${run.run_id}`)).body.connection_id).toBe(first.connection_id);
    expect((await k.as(b.token)('GET', `/v1/integration-runs/${run.run_id}`)).status).toBe(404);
  }, 60_000);

  it('retain: provider data stays, runs stop', async () => {
    const { token } = await k.newOrg();
    const hubId = k.hs.addHub(
      'keep.hubspot.com',
      people.slice(0, 2).map((p) => contactOf(p)),
    );
    await k.connect(token, hubId);
    const queued = (
      await k.as(token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })
    ).body;
    await k.runJob(
      token,
      (await k.as(token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })).body
        .run_id,
    );
    expect((await k.as(token)('DELETE', '/v1/connections/hubspot', { app_data_policy: 'retain' })).body).toEqual({ disconnected: true });
    expect(k.hs.hub(hubId).properties.has('ads_age')).toBe(true);
    expect(k.hs.hub(hubId).contacts[0]!.properties.ads_age).toBe(String(people[0]!.age));
    // A run queued before the disconnect fails when it starts; new runs are refused.
    const stopped = await k.runJob(token, queued.run_id);
    expect(stopped).toMatchObject({ status: 'failed', failure_code: 'CONNECTION_REVOKED' });
    expectEquations(stopped);
    expect(
      (await k.as(token)('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age'] })).body
        .error,
    ).toBe('CONNECTION_NOT_FOUND');
  }, 60_000);
});
