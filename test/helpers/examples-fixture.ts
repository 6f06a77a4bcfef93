/**
 * Seeds one organization with resources whose ids are exactly the ids the operation examples use
 * (src/core/examples.ts), so every example can be sent as written. Resources are made through the API
 * and their ids then renamed in the control plane before anything else refers to them.
 */
import { type Kysely, sql } from 'kysely';
import { EXAMPLE } from '../../src/core/examples.ts';
import type { DB } from '../../src/db/schema.ts';
import { hashApiKey } from '../../src/modules/auth/index.ts';
import { bearer, createTestOrg, type TestApp, type TestOrg } from './app.ts';
import { testStores } from './stores.ts';
import type { HubSpotStandIn } from './hubspot-server.ts';

/** Copies a row under a new id, moves the references to it, and deletes the original (foreign keys hold throughout). */
async function renameRow(db: Kysely<DB>, table: 'segments' | 'audiences', from: string, to: string, refs: [string, string][]) {
  await db.transaction().execute(async (trx) => {
    // Copied in SQL, not through JavaScript: node-postgres would write a JSON array column back as a
    // PostgreSQL array literal.
    await sql`INSERT INTO ${sql.table(table)}
      SELECT (jsonb_populate_record(t, jsonb_build_object('id', ${to}::text))).* FROM ${sql.table(table)} t WHERE t.id = ${from}`.execute(
      trx,
    );
    for (const [refTable, column] of refs) {
      await trx
        .updateTable(refTable as 'audience_segments')
        .set({ [column]: to } as never)
        .where(column as 'segment_id', '=', from)
        .execute();
    }
    await trx.deleteFrom(table).where('id', '=', from).execute();
  });
}
const renameSegment = (db: Kysely<DB>, from: string, to: string) =>
  renameRow(db, 'segments', from, to, [
    ['audience_segments', 'segment_id'],
    ['file_matches', 'segment_id'],
  ]);
const renameAudience = (db: Kysely<DB>, from: string, to: string) =>
  renameRow(db, 'audiences', from, to, [
    ['audience_segments', 'audience_id'],
    ['file_matches', 'audience_id'],
  ]);

export interface ExampleFixture {
  org: TestOrg;
  token: string;
}

export async function seedExamples(t: TestApp, options: { hubspot?: HubSpotStandIn } = {}): Promise<ExampleFixture> {
  const { database } = await testStores();
  const db = database.db;
  const org = await createTestOrg(t, { name: 'Example Org' });
  const token = await org.token();
  const call = async (method: string, url: string, payload?: object) => {
    const res = await t.app.inject({ method: method as 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`seed ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  // API keys: the documented raw key, and one to deactivate.
  for (const [id, raw] of [
    [EXAMPLE.keyId, EXAMPLE.apiKey],
    [EXAMPLE.revocableKeyId, `${EXAMPLE.apiKey.slice(0, -1)}1`],
  ] as const) {
    await db
      .insertInto('api_keys')
      .values({
        id,
        org_id: org.orgId,
        user_id: org.ownerId,
        name: 'example',
        scopes: ['discovery', 'creator', 'account'],
        key_hash: hashApiKey(raw),
        key_hint: 'ads_live_Exam…0000',
        created_at: t.clock.now(),
        deactivated_at: null,
        last_used_at: null,
      })
      .execute();
  }

  // Filter segments, then the audiences composed of them.
  const filters = [{ field: 'state', op: '=', value: 'CA' }];
  for (const id of [EXAMPLE.filterSegmentId, EXAMPLE.spareSegmentId, EXAMPLE.deletableSegmentId]) {
    const seg = await call('POST', '/v1/segments', { name: `example ${id}`, filters, create_audience: false });
    await renameSegment(db, seg.segment_id, id);
  }
  for (const [id, segmentId] of [
    [EXAMPLE.audienceId, EXAMPLE.filterSegmentId],
    [EXAMPLE.spareAudienceId, EXAMPLE.spareSegmentId],
  ] as const) {
    const aud = await call('POST', '/v1/audiences', { name: `example ${id}`, segment_ids: [segmentId] });
    await renameAudience(db, aud.audience_id, id);
  }

  // Matched segments (pending, nothing uploaded): one wrapped by an audience, one to report failed.
  const matched = await call('POST', '/v1/match/file', { name: 'example match' });
  await renameSegment(db, matched.segment_id, EXAMPLE.matchedSegmentId);
  await renameAudience(db, matched.audience_id, EXAMPLE.matchedAudienceId);
  const failing = await call('POST', '/v1/match/file', { name: 'example upload', create_audience: false });
  await renameSegment(db, failing.segment_id, EXAMPLE.failedUploadSegmentId);

  const campaign = await call('POST', '/v1/campaigns', { name: 'example campaign' });
  await db.updateTable('campaigns').set({ id: EXAMPLE.campaignId }).where('id', '=', campaign.id).execute();

  const sub = await call('POST', '/v1/webhook-subscriptions', { target_url: 'https://hooks.example.com/all', events: ['segment.ready'] });
  await db.updateTable('webhook_subscriptions').set({ id: EXAMPLE.subscriptionId }).where('id', '=', sub.id).execute();

  // An event delivered to the organization URL.
  await call('PUT', '/v1/settings/webhook', { url: 'https://hooks.example.com/org' });
  const now = t.clock.now();
  await db
    .insertInto('events')
    .values({
      id: EXAMPLE.eventId,
      org_id: org.orgId,
      type: 'segment.ready',
      subject_kind: 'segment',
      subject_id: EXAMPLE.filterSegmentId,
      body: JSON.stringify({ id: EXAMPLE.eventId, type: 'segment.ready', org_id: org.orgId, data: { status: 'completed' } }),
      created_at: now,
    })
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: EXAMPLE.webhookDeliveryId,
      org_id: org.orgId,
      event_id: EXAMPLE.eventId,
      destination: 'organization',
      subscription_id: null,
      target_url: 'https://hooks.example.com/org',
      status: 'succeeded',
      failure_reason: null,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      redelivery_of: null,
      created_at: now,
      updated_at: now,
      completed_at: now,
    })
    .execute();
  // A completed similarity build (GET /v1/workflows/{id}; resume answers 409 on it).
  const step = (name: string) => ({
    name,
    status: 'completed',
    started_at: now.toISOString(),
    completed_at: now.toISOString(),
    metrics: null,
  });
  await db
    .insertInto('workflow_runs')
    .values({
      id: EXAMPLE.workflowRunId,
      org_id: org.orgId,
      segment_id: EXAMPLE.filterSegmentId,
      kind: 'similarity',
      status: 'completed',
      hitl: false,
      segment_version: 1,
      input: JSON.stringify({
        seed_segment_id: EXAMPLE.spareSegmentId,
        model_type: 'BOOSTED_TREE_CLASSIFIER',
        excluded_columns: null,
        model_name: null,
        target_size: null,
      }),
      steps: JSON.stringify([step('seed'), step('train_and_score'), step('publish')]),
      gates: JSON.stringify([]),
      metrics: null,
      model: null,
      members_path: null,
      record_count: null,
      attempts: 1,
      error_code: null,
      error_message: null,
      created_at: now,
      updated_at: now,
      completed_at: now,
    })
    .execute();
  // A member to suspend and remove, and an OAuth grant the owner approved, to revoke.
  await db
    .insertInto('users')
    .values({
      id: EXAMPLE.memberUserId,
      org_id: org.orgId,
      email: 'member@example.com',
      role: 'member',
      created_at: now,
      email_verified_at: now,
    } as never)
    .execute();
  await db
    .insertInto('oauth_records')
    .values({
      model: 'Grant',
      key: EXAMPLE.oauthGrantId,
      org_id: org.orgId,
      client_id: 'example-client',
      client_name: 'Example CRM',
      account_id: org.ownerId,
      payload: JSON.stringify({
        kind: 'Grant',
        jti: EXAMPLE.oauthGrantId,
        clientId: 'example-client',
        accountId: org.ownerId,
        resources: { 'http://localhost/v1': 'discovery' },
      }),
      created_at: now,
      expires_at: new Date(now.getTime() + 86_400_000),
    } as never)
    .execute();
  // Billing: a prepaid organization on the scale tier (its contract can change), with credit, a card and
  // a billing address (auto-recharge can be enabled without charging: the balance is above the threshold).
  await t.services.organizations.setTier(org.orgId, 'scale');
  const billing = t.services.billingModule.accounts;
  await billing.setup(org.orgId, { mode: 'prepaid' });
  await billing.grant(org.orgId, { kind: 'promotional_credit', amountCents: 100_000, name: 'Example credit' });
  await db
    .updateTable('billing_accounts')
    .set({
      payment_method_id: 'pm_example',
      payment_method_label: 'visa ending 4242',
      billing_address: JSON.stringify({
        name: 'Example Org',
        line1: '1 Main St',
        city: 'Austin',
        state: 'TX',
        postal_code: '78701',
        country: 'US',
      }),
    })
    .where('org_id', '=', org.orgId)
    .execute();
  // A HubSpot connection made through the stand-in's OAuth, and a queued run on it (to read and cancel).
  if (options.hubspot) {
    const hubId = options.hubspot.addHub('example.hubspot.com', []);
    const { state } = await call('POST', '/v1/connections/hubspot/authorize');
    const connection = await call('POST', '/v1/connections/hubspot', { code: options.hubspot.approve(hubId), state });
    await db
      .insertInto('integration_runs')
      .values({
        id: EXAMPLE.integrationRunId,
        org_id: org.orgId,
        connection_id: connection.connection_id,
        provider: 'hubspot',
        kind: 'batch_enrichment',
        data_flow: 'round_trip',
        purpose: 'enrichment',
        status: 'created',
        billing_source: 'native',
        customer_boundary: 'provider_writeback',
        counts: JSON.stringify({ input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 }),
        selected_fields: JSON.stringify(['age']),
        boundary_at: null,
        failure_code: null,
        failure_message: null,
        created_by: org.ownerId,
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();
  }
  // The organization's default integration match collection, under the example id.
  await db
    .insertInto('integration_collections')
    .values({
      id: EXAMPLE.integrationCollectionId,
      org_id: org.orgId,
      name: 'Default collection',
      kind: 'default',
      status: 'active',
      retention_days: 90,
      identity_count: null,
      count_refreshed_at: null,
      last_captured_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { org, token };
}
