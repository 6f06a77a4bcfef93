/**
 * The run kinds that do not write back, end to end over HTTP against the loopback stand-ins:
 * file_enrichment (HubSpot contacts -> an enriched CSV file) and ingest (Mailchimp members -> matched
 * records), their counts by the equations of decision 038, charges less the contract discount (growth:
 * 500 basis points) billed once on replay, and a run executed by the pg-boss worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { startJobs } from '../../src/jobs/worker.ts';
import { INTEGRATION_RUN_JOB } from '../../src/modules/integrations/index.ts';
import { testStores } from '../helpers/stores.ts';
import { NOBODY, pickPersons, title, type Row } from '../match-api/setup.ts';
import { contactOf, expectEquations, setup, type IntegrationTest } from './setup.ts';

let k: IntegrationTest;
let people: Row[];

beforeAll(async () => {
  k = await setup();
  people = await pickPersons(k, 30);
}, 180_000);
afterAll(async () => k?.close());

const member = (p: Row) => ({
  email_address: p.email,
  merge_fields: { FNAME: title(p.first_name), LNAME: title(p.last_name), ADDRESS: '', PHONE: '' },
});
const ledgerOf = async (orgId: string) =>
  (await k.t.services.billing.ledger(orgId))
    .filter((r) => r.kind.startsWith('integration.'))
    .map((r) => [r.kind, r.status, r.quantity, r.amount_cents])
    .sort();

describe('file_enrichment', () => {
  it('writes the matched contacts with the selected fields to a CSV file, billed once less the discount', async () => {
    const { org, token } = await k.newOrg('growth');
    const call = k.as(token);
    const persons = people.slice(0, 20);
    const hubId = k.hs.addHub('files.hubspot.com', [
      ...persons.map((p) => contactOf(p)),
      { firstname: NOBODY.first_name, lastname: NOBODY.last_name, email: NOBODY.email },
      {},
    ]);
    await k.connect(token, hubId);
    // The access token has expired at HubSpot (401 on first use): refreshed once, then the run goes on.
    const refreshes = k.hs.refreshes;
    k.hs.expireAccessTokens();
    const created = await call('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'file_enrichment',
      selected_fields: ['age', 'state'],
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      kind: 'file_enrichment',
      data_flow: 'provider_to_platform',
      purpose: 'enrichment',
      customer_boundary: 'file_available',
      status: 'created',
    });
    const early = await call('GET', `/v1/integration-runs/${created.body.run_id}/file`);
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('INTEGRATION_RUN_OUTPUT_UNAVAILABLE');

    const run = await k.runJob(token, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed', boundary_at: k.clock.now().toISOString() });
    expect(run.counts).toEqual({ input: 22, matched: 20, delivered: 20, applied: 20, unchanged: 0, skipped: 0, failed: 0 });
    expectEquations(run);
    expect(k.hs.refreshes).toBe(refreshes + 1);
    // Nothing was written to HubSpot.
    expect(k.hs.log.some((l) => l.startsWith('POST /crm/v3/objects/contacts/batch'))).toBe(false);

    const file = await k.t.app.inject({
      method: 'GET',
      url: `/v1/integration-runs/${run.run_id}/file`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/csv/);
    const lines = file.body.trim().split('\n');
    expect(lines[0]).toBe('provider_contact_id,iag_person_id,match_level,age,state');
    const contacts = k.hs.hub(hubId).contacts;
    expect(
      lines.slice(1).map((l) => {
        const c = l.split(',');
        return [c[0], c[3], c[4]];
      }),
    ).toEqual(persons.map((p, i) => [contacts[i]!.id, String(p.age), p.state]));
    for (const l of lines.slice(1)) expect(l.split(',')[1]).toMatch(/^.{8,}$/);

    // growth: match 3 cents and field 1 cent a record, less 500 bps: 20 x 3 = 60 -> 57; 20 x (1 + 1) = 40 -> 38.
    expect(await ledgerOf(org.orgId)).toEqual([
      ['integration.enrichment_field', 'settled', 20, 38],
      ['integration.match', 'settled', 20, 57],
    ]);
    const replay = await k.runJob(token, run.run_id);
    expect(replay).toEqual(run);
    expect(await ledgerOf(org.orgId)).toHaveLength(2);
    expect((await k.as((await k.newOrg()).token)('GET', `/v1/integration-runs/${run.run_id}/file`)).status).toBe(404);
    expect((await call('GET', `/v1/integration-runs/${run.run_id}/records`)).body.error).toBe('INTEGRATION_RUN_OUTPUT_UNAVAILABLE');
  }, 60_000);
});

describe('ingest', () => {
  it('keeps every matched Mailchimp member as a record with the person and the fields, paged', async () => {
    const { org, token } = await k.newOrg('paygo');
    const call = k.as(token);
    const persons = people.slice(0, 12);
    const accountId = k.mc.addAccount('Ingest', [
      ...persons.map(member),
      { email_address: 'zq.nobody.77@examplemail.com', merge_fields: { FNAME: NOBODY.first_name, LNAME: NOBODY.last_name } },
    ]);
    await k.connectMailchimp(token, accountId);
    // Mailchimp answers the first member read with 429 (too many connections): waited out.
    k.mc.rateLimitNext(1);
    const created = await call('POST', '/v1/integration-runs', {
      provider: 'mailchimp',
      kind: 'ingest',
      selected_fields: ['age'],
      billing_source: 'acme_platform',
    });
    expect(created.body).toMatchObject({
      kind: 'ingest',
      data_flow: 'provider_to_platform',
      purpose: 'ingest',
      customer_boundary: 'api_response',
      billing_source: 'acme_platform',
    });
    const run = await k.runJob(token, created.body.run_id);
    expect(run.counts).toEqual({ input: 13, matched: 12, delivered: 12, applied: 12, unchanged: 0, skipped: 0, failed: 0 });
    expectEquations(run);
    // Nothing was written to Mailchimp, and a partner billing source bills nothing here.
    expect(k.mc.account(accountId).lists[0]!.mergeFields.map((f) => f.tag)).toEqual(['FNAME', 'LNAME', 'ADDRESS', 'PHONE']);
    expect(await ledgerOf(org.orgId)).toEqual([]);

    const page1 = await call('GET', `/v1/integration-runs/${run.run_id}/records?limit=5`);
    expect(page1.status).toBe(200);
    expect(page1.body.records).toHaveLength(5);
    expect(page1.body.has_more).toBe(true);
    const all = [...page1.body.records];
    let cursor = page1.body.next_cursor;
    while (cursor) {
      const next = await call('GET', `/v1/integration-runs/${run.run_id}/records?limit=5&cursor=${cursor}`);
      all.push(...next.body.records);
      cursor = next.body.next_cursor;
    }
    const listId = k.mc.account(accountId).lists[0]!.id;
    expect(all.map((r) => [r.provider_contact_id, r.fields])).toEqual(
      persons.map((p) => [`${listId}:${p.email.toLowerCase()}`, { age: String(p.age) }]),
    );
    for (const r of all) {
      expect(Object.keys(r).sort()).toEqual(['fields', 'iag_person_id', 'match_level', 'provider_contact_id']);
      expect(r.iag_person_id).toEqual(expect.any(String));
      expect(r.match_level).toEqual(expect.any(String));
    }
    // A cursor of another list is refused; another organization sees nothing.
    const foreign = await call('GET', `/v1/integration-runs?limit=1`);
    expect((await call('GET', `/v1/integration-runs/${run.run_id}/records?cursor=${foreign.body.next_cursor ?? 'bad'}`)).status).toBe(400);
    expect((await k.as((await k.newOrg()).token)('GET', `/v1/integration-runs/${run.run_id}/records`)).status).toBe(404);
    expect((await call('GET', `/v1/integration-runs/${run.run_id}/file`)).body.error).toBe('INTEGRATION_RUN_OUTPUT_UNAVAILABLE');
  }, 60_000);
});

describe('the pg-boss worker', () => {
  it('executes a queued run: created over HTTP, consumed from the queue, completed and billed once', async () => {
    const { database } = await testStores();
    const queue = createJobQueue(database, {});
    const definition = k.t.services.jobDefinitions().find((d) => d.name === INTEGRATION_RUN_JOB)!;
    const worker = await startJobs(queue, [definition], { work: true });
    try {
      const { org, token } = await k.newOrg('paygo');
      await k.connect(
        token,
        k.hs.addHub(
          'worker.hubspot.com',
          people.slice(0, 4).map((p) => contactOf(p)),
        ),
      );
      const created = await k.as(token)('POST', '/v1/integration-runs', {
        provider: 'hubspot',
        kind: 'batch_enrichment',
        selected_fields: ['age'],
      });
      // Polled on the service (not over HTTP: the request rate limit is not what this test is about).
      for (let i = 0; i < 240; i++) {
        if (
          ['completed', 'failed', 'cancelled'].includes((await k.t.services.integrations.runs.get(org.orgId, created.body.run_id)).status)
        )
          break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const run = (await k.as(token)('GET', `/v1/integration-runs/${created.body.run_id}`)).body;
      expect(run).toMatchObject({ status: 'completed', counts: { input: 4, matched: 4, applied: 4, delivered: 4 } });
      expectEquations(run);
      expect(await ledgerOf(org.orgId)).toEqual([
        ['integration.enrichment_field', 'settled', 4, 4],
        ['integration.match', 'settled', 4, 20],
      ]);
      expect(await k.events(run.run_id)).toHaveLength(1);
    } finally {
      await worker.stop();
    }
    (k.clock as ManualClock).advance(1000);
  }, 60_000);
});
