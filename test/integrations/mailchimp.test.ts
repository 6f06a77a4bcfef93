/**
 * Mailchimp connections and batch-enrichment runs end to end over HTTP, against the loopback Mailchimp
 * stand-in: OAuth 2 connect with the metadata data center, members of two audiences paged by offset,
 * merge fields created and written (a member refused by Mailchimp counted in `failed`), 429 answers,
 * a revoked token (no refresh grant in Mailchimp), both disconnect policies (remove deletes the merge
 * fields this service created) and a reconnect of the same account to another organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeTag } from '../../src/modules/integrations/providers/mailchimp.ts';
import { testStores } from '../helpers/stores.ts';
import { NOBODY, pickPersons, title, type Row } from '../match-api/setup.ts';
import { expectEquations, setup, type IntegrationTest } from './setup.ts';

let k: IntegrationTest;
let people: Row[];

beforeAll(async () => {
  k = await setup();
  people = await pickPersons(k, 110);
}, 180_000);
afterAll(async () => k?.close());

const member = (p: Row) => ({
  email_address: p.email,
  merge_fields: { FNAME: title(p.first_name), LNAME: title(p.last_name), ADDRESS: '', PHONE: '' },
});
const nobody = (i: number) => ({
  email_address: `zq.nobody.${i}@examplemail.com`,
  merge_fields: { FNAME: NOBODY.first_name, LNAME: NOBODY.last_name, ADDRESS: '', PHONE: '' },
});
const AGE = mergeTag('age');
const start = (token: string, body: object = {}) =>
  k.as(token)('POST', '/v1/integration-runs', { provider: 'mailchimp', kind: 'batch_enrichment', selected_fields: ['age'], ...body });

describe('mailchimp', () => {
  it('connects through OAuth 2 with the metadata data center, and enriches the members of every audience page by page', async () => {
    const { org, token } = await k.newOrg('paygo');
    const accountId = k.mc.addAccount('Acme Newsletter', [...people.slice(0, 100).map(member), nobody(1), nobody(2)]);
    const account = k.mc.account(accountId);
    account.lists.push({
      id: 'second0001',
      name: 'Second audience',
      members: people.slice(100, 105).map((p) => ({ ...member(p), status: 'unsubscribed' as const })),
      mergeFields: [],
    });
    // One member already holds the value, Mailchimp refuses another.
    const first = account.lists[0]!;
    first.mergeFields.push({ merge_id: 9, tag: AGE, name: 'ADS age', type: 'text' });
    first.members[0]!.merge_fields[AGE] = String(people[0]!.age);
    k.mc.rejectEmails.add(people[1]!.email.toLowerCase());

    const made = await k.connectMailchimp(token, accountId);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      connection_id: expect.stringMatching(/^con_/),
      provider: 'mailchimp',
      provider_account_id: accountId,
      display_name: 'Acme Newsletter',
      status: 'connected',
      created_at: k.clock.now().toISOString(),
    });
    expect(k.mc.log).toEqual(expect.arrayContaining(['POST /oauth2/token', 'GET /oauth2/metadata', 'GET /3.0/']));
    const row = await (
      await testStores()
    ).database.db
      .selectFrom('integration_connections')
      .selectAll()
      .where('id', '=', made.body.connection_id)
      .executeTakeFirstOrThrow();
    expect(row.access_token).toMatch(/^itk1\./);

    const created = await start(token);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      provider: 'mailchimp',
      kind: 'batch_enrichment',
      data_flow: 'round_trip',
      purpose: 'enrichment',
      customer_boundary: 'provider_writeback',
      connection_display_name: 'Acme Newsletter',
    });
    const run = await k.runJob(token, created.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.counts).toEqual({ input: 107, matched: 105, delivered: 104, applied: 103, unchanged: 1, skipped: 0, failed: 1 });
    expectEquations(run);
    for (const [i, p] of people.slice(0, 100).entries()) if (i !== 1) expect(first.members[i]!.merge_fields[AGE]).toBe(String(p.age));
    expect(first.members[1]!.merge_fields[AGE]).toBeUndefined();
    k.mc.rejectEmails.clear();
    // The merge field was created in the second audience too, and its (unsubscribed) members were updated without a status change.
    const second = account.lists[1]!;
    expect(second.mergeFields.map((f) => [f.tag, f.name, f.type])).toEqual([[AGE, 'ADS age', 'text']]);
    expect(second.members.map((m) => [m.status, m.merge_fields[AGE]])).toEqual(
      people.slice(100, 105).map((p) => ['unsubscribed', String(p.age)]),
    );
    expect(k.mc.log.filter((l) => l === `GET /3.0/lists/${first.id}/members`)).toHaveLength(2);

    const ledger = (await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'));
    expect(ledger.map((r) => [r.kind, r.status, r.quantity, r.amount_cents]).sort()).toEqual([
      ['integration.enrichment_field', 'settled', 103, 103],
      ['integration.match', 'settled', 105, 525],
    ]);
    const replay = await k.runJob(token, run.run_id);
    expect(replay).toEqual(run);
    expect((await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'))).toHaveLength(2);
  }, 120_000);

  it('waits out 429 problem answers, fails with PROVIDER_RATE_LIMITED when they do not stop, and with PROVIDER_UNAUTHORIZED on a revoked token', async () => {
    const { org, token } = await k.newOrg('paygo');
    const accountId = k.mc.addAccount('Busy', people.slice(0, 3).map(member));
    await k.connectMailchimp(token, accountId);
    k.mc.rateLimitNext(2);
    const ok = await k.runJob(token, (await start(token)).body.run_id);
    expect(ok).toMatchObject({ status: 'completed', counts: { input: 3, matched: 3, applied: 3, delivered: 3 } });
    expectEquations(ok);
    k.mc.rateLimitNext(50);
    const limited = await k.runJob(token, (await start(token)).body.run_id);
    k.mc.rateLimitNext(0);
    expect(limited).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_RATE_LIMITED', boundary_at: null });
    expectEquations(limited);

    k.mc.revokeTokens();
    const revoked = await k.runJob(token, (await start(token)).body.run_id);
    expect(revoked).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAUTHORIZED', counts: { input: 0 } });
    expect(revoked.failure_message).toMatch(/reconnect/);
    expect(await k.events(revoked.run_id)).toEqual([
      { type: 'integration_run.failed', data: expect.objectContaining({ provider: 'mailchimp', failure_code: 'PROVIDER_UNAUTHORIZED' }) },
    ]);
    const rows = (await k.t.services.billing.ledger(org.orgId)).filter((r) => r.kind.startsWith('integration.'));
    expect(rows.map((r) => r.status)).toEqual(['settled', 'settled']);
  }, 60_000);

  it('remove deletes the merge fields it created (a failed deletion leaves the connection), and the account then connects elsewhere', async () => {
    const a = await k.newOrg();
    const accountId = k.mc.addAccount('Moving', people.slice(0, 2).map(member));
    const list = k.mc.account(accountId).lists[0]!;
    const connection = (await k.connectMailchimp(a.token, accountId)).body;
    const run = await k.runJob(a.token, (await start(a.token)).body.run_id);
    expect(run.counts.applied).toBe(2);
    expect(list.mergeFields.some((f) => f.tag === AGE)).toBe(true);

    const b = await k.newOrg();
    expect((await k.connectMailchimp(b.token, accountId)).body.error).toBe('CONNECTION_ACCOUNT_IN_USE');
    k.mc.failMergeFieldDeletes = true;
    const failed = await k.as(a.token)('DELETE', '/v1/connections/mailchimp', { app_data_policy: 'remove' });
    k.mc.failMergeFieldDeletes = false;
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('PROVIDER_CLEANUP_FAILED');
    expect(failed.body.message).toMatch(/Internal Server Error/);
    expect((await k.as(a.token)('GET', '/v1/connections')).body.connections).toHaveLength(1);

    expect(await k.as(a.token)('DELETE', '/v1/connections/mailchimp', { app_data_policy: 'remove' })).toEqual({
      status: 200,
      body: { disconnected: true },
    });
    expect(list.mergeFields.map((f) => f.tag)).toEqual(['FNAME', 'LNAME', 'ADDRESS', 'PHONE']);
    expect(list.members.every((m) => !(AGE in m.merge_fields))).toBe(true);

    const moved = await k.connectMailchimp(b.token, accountId);
    expect(moved.status).toBe(201);
    expect(moved.body.connection_id).not.toBe(connection.connection_id);
    expect((await k.as(a.token)('GET', `/v1/integration-runs/${run.run_id}`)).body.connection_id).toBe(connection.connection_id);
    expect((await k.as(b.token)('GET', `/v1/integration-runs/${run.run_id}`)).status).toBe(404);

    // retain leaves the merge fields and their values.
    const kept = await k.runJob(b.token, (await start(b.token)).body.run_id);
    expect(kept.counts.applied).toBe(2);
    expect(await k.as(b.token)('DELETE', '/v1/connections/mailchimp', { app_data_policy: 'retain' })).toEqual({
      status: 200,
      body: { disconnected: true },
    });
    expect(list.members.map((m) => m.merge_fields[AGE])).toEqual(people.slice(0, 2).map((p) => String(p.age)));
  }, 60_000);

  it('refuses a code Mailchimp does not know, connecting nothing', async () => {
    const { token } = await k.newOrg();
    const bad = await k.as(token)('POST', '/v1/connections/mailchimp', {
      code: 'nope',
      state: (await k.as(token)('POST', '/v1/connections/mailchimp/authorize')).body.state,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('INTEGRATION_AUTHORIZATION_INVALID');
    expect((await k.as(token)('GET', '/v1/connections')).body).toEqual({ connections: [] });
  });
});
