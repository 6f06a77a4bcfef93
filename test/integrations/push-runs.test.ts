/**
 * The run kinds that push an audience to the provider, end to end over HTTP against the loopback stand-ins
 * (decision 038): activation into a HubSpot static list and into a Mailchimp audience (list created, members
 * added, a refused member counted in `failed`, a rate-limited provider, app_data_policy remove deleting the
 * list), export of the selected fields to the provider's contacts, the delivery of the audience billed once
 * (also when the job is retried), a partner billing source billing nothing, and organization isolation.
 * The delivery export job runs on the shared test queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { testStores } from '../helpers/stores.ts';
import { NOBODY, title, type Row } from '../match-api/setup.ts';
import { contactOf, expectEquations, setup, type IntegrationTest } from './setup.ts';

let k: IntegrationTest;
/** Persons of one ZIP code with an email (the audience), and one person elsewhere. */
let zip: string;
let inZip: Row[];
let outside: Row;
/** Members of the audience (every person of the ZIP code, with an email or not). */
let audienceSize: number;
let workerId: string;
let deliveryJob: JobDefinition;

beforeAll(async () => {
  k = await setup();
  const withEmail = `EXISTS (SELECT 1 FROM graph.emails e WHERE e.person_key = p.person_key)`;
  const persons = (where: string, n: number) =>
    k.q(`SELECT p.*, (SELECT min(email) FROM graph.emails e WHERE e.person_key = p.person_key) AS email
    FROM graph.persons p WHERE ${where} AND ${withEmail} ORDER BY person_key LIMIT ${n}`);
  zip = (
    await k.q(
      `SELECT zip5, count(*) AS n FROM graph.persons p WHERE ${withEmail} GROUP BY zip5 HAVING count(*) BETWEEN 4 AND 12 ORDER BY zip5 LIMIT 1`,
    )
  )[0]!.zip5;
  inZip = await persons(`zip5 = '${zip}'`, 12);
  outside = (await persons(`zip5 <> '${zip}'`, 1))[0]!;
  audienceSize = Number((await k.q(`SELECT count(*) AS n FROM graph.persons WHERE zip5 = '${zip}'`))[0]!.n);
  const { queue } = await testStores();
  deliveryJob = k.t.services.deliveries.jobDefinitions()[0] as JobDefinition;
  await queue.ensureQueue(deliveryJob.name, deliveryJob.queue);
  workerId = await queue.work<any>(
    deliveryJob.name,
    { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true } as never,
    async (jobs) => {
      for (const job of jobs)
        await deliveryJob.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
    },
  );
}, 180_000);
afterAll(async () => {
  await (await testStores()).queue.boss.offWork(deliveryJob.name, { id: workerId });
  await k?.close();
});

const audienceOf = async (token: string) => {
  const res = await k.as(token)('POST', '/v1/segments', {
    name: `zip ${zip}`,
    filters: [{ field: 'zip5', op: '=', value: zip }],
    create_audience: true,
  });
  expect(res.status).toBe(201);
  return res.body.audience_id as string;
};
const ledgerOf = async (orgId: string) => (await k.t.services.billing.ledger(orgId)).map((r) => [r.kind, r.status, r.quantity]).sort();
const member = (p: Row) => ({
  email_address: p.email,
  merge_fields: { FNAME: title(p.first_name), LNAME: title(p.last_name), ADDRESS: '', PHONE: '' },
});

describe('activation', () => {
  it('HubSpot: creates a static list, upserts the selected field by email and adds the members; billed once through the delivery', async () => {
    const { org, token } = await k.newOrg('growth');
    const call = k.as(token);
    const audienceId = await audienceOf(token);
    const members = inZip.slice(0, 4);
    const hubId = k.hs.addHub('activation.hubspot.com', [
      ...members.map((p) => contactOf(p)),
      contactOf(outside),
      { firstname: NOBODY.first_name, lastname: NOBODY.last_name, email: NOBODY.email },
    ]);
    await k.connect(token, hubId);
    const contacts = k.hs.hub(hubId).contacts;
    k.hs.rejectIds.add(contacts[3]!.id);

    expect(
      (await call('POST', '/v1/integration-runs', { provider: 'hubspot', kind: 'activation', selected_fields: ['age'] })).body.error,
    ).toBe('INVALID_REQUEST');
    expect(
      (
        await call('POST', '/v1/integration-runs', {
          provider: 'hubspot',
          kind: 'ingest',
          selected_fields: ['age'],
          audience_id: audienceId,
        })
      ).body.error,
    ).toBe('INVALID_REQUEST');
    const created = await call('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'activation',
      selected_fields: ['age'],
      audience_id: audienceId,
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      kind: 'activation',
      data_flow: 'platform_to_provider',
      purpose: 'activation',
      customer_boundary: 'destination_handoff',
      billing_source: 'native',
      status: 'created',
    });
    expect(Object.keys(created.body)).not.toContain('audience_id');

    // HubSpot answers the first two calls with 429 and Retry-After: waited out.
    k.hs.rateLimitNext(2, 1);
    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed', failure_code: null });
    expect(run.counts).toEqual({ input: audienceSize, matched: 4, delivered: 4, applied: 3, unchanged: 0, skipped: 0, failed: 1 });
    expectEquations(run);

    const lists = k.hs.hub(hubId).lists!;
    expect(lists).toHaveLength(1);
    const listId = lists[0]!.listId;
    expect(lists[0]).toMatchObject({ processingType: 'MANUAL', objectTypeId: '0-1' });
    expect(lists[0]!.members).toEqual(contacts.slice(0, 3).map((c) => c.id));
    expect(contacts.slice(0, 4).map((c) => c.properties.ads_age ?? null)).toEqual([...members.slice(0, 3).map((p) => String(p.age)), null]);
    // No contact created: every member was already a HubSpot contact.
    expect(contacts).toHaveLength(6);

    // The delivery of the audience is the charge (the run writes no integration.* rows); a replay charges nothing more.
    const ledger = await ledgerOf(org.orgId);
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.every(([kind, status]) => !String(kind).startsWith('integration.') && status === 'settled')).toBe(true);
    expect(ledger.find(([kind]) => String(kind).startsWith('audience_delivery.'))![2]).toBe(audienceSize);
    expect(await k.runJob(token, run.run_id)).toEqual(run);
    // A job retried after a crash (the run still processing) reuses the delivery and the list: already members are unchanged.
    await (
      await testStores()
    ).database.db
      .updateTable('integration_runs')
      .set({ status: 'processing', completed_at: null })
      .where('id', '=', run.run_id)
      .execute();
    const retried = await k.runJob(token, run.run_id);
    expect(retried.counts).toEqual({ input: audienceSize, matched: 4, delivered: 1, applied: 0, unchanged: 3, skipped: 0, failed: 1 });
    expectEquations(retried);
    expect(k.hs.hub(hubId).lists).toHaveLength(1);
    expect(await ledgerOf(org.orgId)).toEqual(ledger);

    // Another organization neither sees the run nor may push this audience.
    const other = await k.newOrg('growth');
    expect((await k.as(other.token)('GET', `/v1/integration-runs/${run.run_id}`)).status).toBe(404);
    await k.connect(other.token, k.hs.addHub('other.hubspot.com', [contactOf(members[0]!)]));
    const foreign = await k.as(other.token)('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'activation',
      selected_fields: ['age'],
      audience_id: audienceId,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('AUDIENCE_NOT_FOUND');

    // app_data_policy remove deletes the list (and the property) this service created.
    const removed = await call('DELETE', '/v1/connections/hubspot', { app_data_policy: 'remove' });
    expect(removed.status).toBe(200);
    expect(k.hs.hub(hubId).lists).toEqual([]);
    expect(k.hs.hub(hubId).properties.has('ads_age')).toBe(false);
    expect(k.hs.log).toContain(`DELETE /crm/v3/lists/${listId}`);
  }, 90_000);

  it('Mailchimp: creates an audience and batch-subscribes the members as transactional; a refused member is failed; a partner billing source bills nothing', async () => {
    const { org, token } = await k.newOrg('growth');
    const call = k.as(token);
    const audienceId = await audienceOf(token);
    const members = inZip.slice(0, 3);
    const accountId = k.mc.addAccount('Activation', [...members.map(member), member(outside)]);
    await k.connectMailchimp(token, accountId);
    k.mc.rejectEmails.add(members[2]!.email.toLowerCase());
    k.mc.rateLimitNext(1);
    const created = await call('POST', '/v1/integration-runs', {
      provider: 'mailchimp',
      kind: 'activation',
      selected_fields: ['age'],
      audience_id: audienceId,
      billing_source: 'acme_platform',
    });
    expect(created.status).toBe(202);
    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed', billing_source: 'acme_platform' });
    expect(run.counts).toEqual({ input: audienceSize, matched: 3, delivered: 3, applied: 2, unchanged: 0, skipped: 0, failed: 1 });
    expectEquations(run);

    const lists = k.mc.account(accountId).lists;
    expect(lists).toHaveLength(2);
    const made = lists[1]!;
    expect(made.members.map((m) => [m.email_address, m.status])).toEqual(members.slice(0, 2).map((p) => [p.email, 'transactional']));
    const tag = made.mergeFields.find((f) => f.name.length > 0 && f.tag.startsWith('AAGE'))!.tag;
    expect(made.members.map((m) => m.merge_fields[tag])).toEqual(members.slice(0, 2).map((p) => String(p.age)));
    expect(made.members[0]!.merge_fields.FNAME).toBe(title(members[0]!.first_name));
    // The partner bills the run: neither the run nor its delivery wrote a ledger row.
    expect(await ledgerOf(org.orgId)).toEqual([]);

    const removed = await call('DELETE', '/v1/connections/mailchimp', { app_data_policy: 'remove' });
    expect(removed.status).toBe(200);
    expect(k.mc.account(accountId).lists.map((l) => l.id)).toEqual([lists[0]!.id]);
  }, 90_000);

  it('a provider that stays rate limited fails the run with PROVIDER_RATE_LIMITED', async () => {
    const { token } = await k.newOrg('growth');
    const audienceId = await audienceOf(token);
    await k.connect(token, k.hs.addHub('limited.hubspot.com', [contactOf(inZip[0]!)]));
    const created = await k.as(token)('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'activation',
      selected_fields: ['age'],
      audience_id: audienceId,
    });
    k.hs.rateLimitNext(20, 0);
    const run = await k.runJob(token, created.body.run_id);
    k.hs.rateLimitNext(0);
    expect(run).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_RATE_LIMITED' });
    expectEquations(run);
    expect((await k.events(run.run_id)).map((e) => e.type)).toEqual(['integration_run.failed']);
  }, 90_000);
});

describe('export', () => {
  it('writes the selected fields of the audience members to their HubSpot contacts: applied, unchanged, skipped by the equations', async () => {
    const { org, token } = await k.newOrg('growth');
    const audienceId = await audienceOf(token);
    const members = inZip.slice(0, 3);
    const hubId = k.hs.addHub('export.hubspot.com', [
      contactOf(members[0]!),
      contactOf(members[1]!),
      contactOf(members[2]!, { ads_age: String(members[2]!.age) }),
      contactOf(outside),
    ]);
    await k.connect(token, hubId);
    const created = await k.as(token)('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'export',
      selected_fields: ['age'],
      audience_id: audienceId,
    });
    expect(created.body).toMatchObject({
      kind: 'export',
      data_flow: 'platform_to_provider',
      purpose: 'export',
      customer_boundary: 'provider_writeback',
    });
    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed' });
    expect(run.counts).toEqual({ input: audienceSize, matched: 3, delivered: 2, applied: 2, unchanged: 1, skipped: 0, failed: 0 });
    expectEquations(run);
    const contacts = k.hs.hub(hubId).contacts;
    expect(contacts.map((c) => c.properties.ads_age ?? null)).toEqual([...members.map((p) => String(p.age)), null]);
    expect(k.hs.hub(hubId).lists ?? []).toEqual([]);
    expect((await k.events(run.run_id)).map((e) => [e.type, e.data.kind, e.data.counts.applied])).toEqual([
      ['integration_run.completed', 'export', 2],
    ]);
    const ledger = await ledgerOf(org.orgId);
    expect(ledger.every(([kind]) => !String(kind).startsWith('integration.'))).toBe(true);
    expect(ledger.find(([kind]) => String(kind).startsWith('audience_delivery.'))).toEqual([expect.any(String), 'settled', audienceSize]);
  }, 90_000);

  it('writes the selected fields to the Mailchimp members of the audience (member PATCH); a refused member is failed; a partner bills it', async () => {
    const { org, token } = await k.newOrg('growth');
    const audienceId = await audienceOf(token);
    const members = inZip.slice(0, 3);
    const accountId = k.mc.addAccount('Export', [...members.map(member), member(outside)]);
    await k.connectMailchimp(token, accountId);
    // The stand-in is shared by the file: only this member is refused here.
    k.mc.rejectEmails.clear();
    k.mc.rejectEmails.add(members[1]!.email.toLowerCase());
    const created = await k.as(token)('POST', '/v1/integration-runs', {
      provider: 'mailchimp',
      kind: 'export',
      selected_fields: ['age'],
      audience_id: audienceId,
      billing_source: 'acme_platform',
    });
    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed', kind: 'export', billing_source: 'acme_platform' });
    expect(run.counts).toEqual({ input: audienceSize, matched: 3, delivered: 3, applied: 2, unchanged: 0, skipped: 0, failed: 1 });
    expectEquations(run);
    const list = k.mc.account(accountId).lists;
    expect(list).toHaveLength(1);
    const tag = list[0]!.mergeFields.find((f) => f.tag.startsWith('AAGE'))!.tag;
    expect(list[0]!.members.map((m) => m.merge_fields[tag] ?? null)).toEqual([
      String(members[0]!.age),
      null,
      String(members[2]!.age),
      null,
    ]);
    expect(list[0]!.members.map((m) => m.status)).toEqual(['subscribed', 'subscribed', 'subscribed', 'subscribed']);
    expect(await ledgerOf(org.orgId)).toEqual([]);
  }, 90_000);
});
