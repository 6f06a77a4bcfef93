/**
 * X-Integration-Execution-Key on POST /v1/match/file (spec 4.5, 2) and integration match collections
 * (spec 2, 3, 8; decision 050), over HTTP against the real stores: a confidential partner client's OAuth
 * token creates and replays a private run, other bearers are refused, the run's match is captured into
 * the organization's collection by the refresh job, counted and made a segment through the collection
 * filter (at its array limits), and expires after the 90-day retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../src/lib/clock.ts';
import { executionRunId } from '../../src/modules/integrations/index.ts';
import { createTestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { toCsv } from '../file-match/helpers.ts';
import { setupCollections, type CollectionTest } from './collections-setup.ts';
import { shownCollectionCount } from './setup.ts';

let k: CollectionTest;
let partnerToken: string;
let keyToken: string;
const KEY = 'exec-2026-11-24-0001';
const BODY = { name: 'Partner workflow file', create_audience: true };
let created: any;
let collectionId: string;

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

beforeAll(async () => {
  k = await setupCollections();
  partnerToken = await k.partnerToken();
  keyToken = await k.org.token(['discovery', 'creator', 'account']);
}, 180_000);
afterAll(async () => {
  await k?.close();
});

describe('execution run ids', () => {
  it('are ir_ and 40 characters of the id alphabet, derived from organization, client and key', () => {
    expect(executionRunId('org_Example', 'partner_Example', 'exec-2026-11-24-0001')).toBe('ir_PHdO86oHX5lvcuy3VmPU-N0LXzaPbSdWpa0M2gxz');
    expect(executionRunId('org_Example', 'partner_Other', 'exec-2026-11-24-0001')).toBe('ir_YCVLU91jSl0qfiiYsYxFfNuC4ywRpvybsGwKCyKF');
    expect(executionRunId('org_Other', 'partner_Example', 'exec-2026-11-24-0001')).toBe('ir_joo9FGhlwsF_sVzzOk1hCcPJFpQnFbtESvBcInHT');
  });
});

describe('X-Integration-Execution-Key on POST /v1/match/file', () => {
  it('is declared in the OpenAPI document with the response field and the collection operations', async () => {
    const doc = (await k.server.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/v1/match/file'].post;
    expect(op.parameters.some((p: any) => p.in === 'header' && p.name === 'x-integration-execution-key')).toBe(true);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '403', '409']));
    for (const path of [
      '/v1/integration-collections',
      '/v1/integration-collections/{id}/count',
      '/v1/integration-collections/{id}/segments',
    ])
      expect(doc.paths[path], path).toBeTruthy();
  });

  it('creates a private run of the organization carrying the partner client id', async () => {
    const res = await k.call(partnerToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': KEY });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    created = res.body;
    expect(created.integration_run_id).toBe(executionRunId(k.org.orgId, k.partner.client_id, KEY));
    expect(created).toMatchObject({ status: 'pending', subtype: 'matched', match_id: created.segment_id });
    const run = await k.call(keyToken, 'GET', `/v1/integration-runs/${created.integration_run_id}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      run_id: created.integration_run_id,
      provider: 'oauth_partner',
      connection_id: k.partner.client_id,
      kind: 'file_enrichment',
      data_flow: 'round_trip',
      purpose: 'enrichment',
      customer_boundary: 'file_available',
      status: 'created',
      billing_source: 'native',
      counts: { input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 },
    });
    // Visible only to its organization.
    const other = await createTestOrg(k.server);
    const foreign = await k.call(await other.token(), 'GET', `/v1/integration-runs/${created.integration_run_id}`);
    expect(foreign.status).toBe(404);
  });

  it('replays the same run and match with the same key: no second match, fresh upload URL; another body conflicts', async () => {
    const again = await k.call(
      partnerToken,
      'POST',
      '/v1/match/file',
      { create_audience: true, name: 'Partner workflow file' },
      { 'x-integration-execution-key': KEY },
    );
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      integration_run_id: created.integration_run_id,
      segment_id: created.segment_id,
      audience_id: created.audience_id,
    });
    expect(again.body.upload_url).toContain(`/v1/uploads/${k.org.orgId}/${created.segment_id}/`);
    const { database } = await testStores();
    const segments = await database.db
      .selectFrom('segments')
      .select('id')
      .where('org_id', '=', k.org.orgId)
      .where('name', '=', BODY.name)
      .execute();
    expect(segments).toHaveLength(1);
    const runs = await database.db.selectFrom('integration_runs').select('id').where('org_id', '=', k.org.orgId).execute();
    expect(runs).toHaveLength(1);
    const conflict = await k.call(partnerToken, 'POST', '/v1/match/file', { name: 'Another file' }, { 'x-integration-execution-key': KEY });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_CONFLICT' });
    expect(conflict.body.request_id).toBeTruthy();
  });

  it('refuses API-key bearers, public clients and malformed keys with clear codes, creating nothing', async () => {
    const viaKey = await k.call(keyToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': 'exec-by-api-key-01' });
    expect(viaKey.status).toBe(403);
    expect(viaKey.body).toMatchObject({ error: 'INTEGRATION_EXECUTION_KEY_NOT_ALLOWED' });
    expect(viaKey.body.message).toMatch(/API key/);
    const publicToken = await k.publicClientToken();
    const viaPublic = await k.call(publicToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': 'exec-by-public-01' });
    expect(viaPublic.status).toBe(403);
    expect(viaPublic.body).toMatchObject({ error: 'INTEGRATION_EXECUTION_KEY_NOT_ALLOWED' });
    const malformed = await k.call(partnerToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': 'short' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: 'INVALID_INTEGRATION_EXECUTION_KEY' });
    const { database } = await testStores();
    expect(await database.db.selectFrom('integration_runs').select('id').where('org_id', '=', k.org.orgId).execute()).toHaveLength(1);
    // Without the header the same public client simply starts a file match.
    expect((await k.call(publicToken, 'POST', '/v1/match/file', {})).status).toBe(201);
  }, 60_000);

  it('answers 409 IDEMPOTENT_REQUEST_IN_PROGRESS while a first call is unfinished, and starts afresh after a crashed one', async () => {
    const key = 'exec-crashed-first-call';
    const id = executionRunId(k.org.orgId, k.partner.client_id, key);
    const { database } = await testStores();
    const now = k.server.clock.now();
    // What a first call leaves when its process dies before the match is stored.
    await database.db
      .insertInto('integration_runs')
      .values({
        id,
        org_id: k.org.orgId,
        connection_id: k.partner.client_id,
        provider: 'oauth_partner',
        kind: 'file_enrichment',
        data_flow: 'round_trip',
        purpose: 'enrichment',
        status: 'created',
        billing_source: 'native',
        customer_boundary: 'file_available',
        counts: JSON.stringify({ input: 0, matched: 0, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 }),
        selected_fields: '[]',
        boundary_at: null,
        failure_code: null,
        failure_message: null,
        created_by: k.owner.userId,
        created_at: now,
        updated_at: now,
        completed_at: null,
        // The body of the first run (BODY), as the first call stored it.
        oauth_client_id: k.partner.client_id,
        execution_body_hash: (
          await database.db
            .selectFrom('integration_runs')
            .select('execution_body_hash')
            .where('id', '=', created.integration_run_id)
            .executeTakeFirstOrThrow()
        ).execution_body_hash,
      })
      .execute();
    const busy = await k.call(partnerToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': key });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ error: 'IDEMPOTENT_REQUEST_IN_PROGRESS' });
    k.server.clock.advance(11 * 60_000);
    const fresh = await k.call(partnerToken, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': key });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    expect(fresh.body.integration_run_id).toBe(id);
    await database.db.deleteFrom('integration_runs').where('id', '=', id).execute();
  });

  it('needs the creator scope like any file match', async () => {
    const readOnly = await k.partnerToken(['discovery']);
    const res = await k.call(readOnly, 'POST', '/v1/match/file', BODY, { 'x-integration-execution-key': 'exec-read-only-01' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'SCOPE_REQUIRED' });
  }, 60_000);
});

describe('capture into the match collection', () => {
  it('completes the run when its match resolves, captures its identities, and counts them', async () => {
    const people = await k.people(60);
    const nobody = Array.from({ length: 5 }, (_, i) => ({
      row_id: `n${i}`,
      email: `zq.nobody.${i}.8841@examplemail.com`,
      first_name: 'Zyxw',
      last_name: `Qqqvnone${i}`,
      zip: '99999',
    }));
    expect(await k.put(created.upload_url, toCsv([...people, ...nobody]))).toBe(200);
    const done = await k.waitResolved(keyToken, created.segment_id);
    expect(done).toMatchObject({ matching_status: 'completed', input_record_count: 65, match_count: 60 });

    const list = await k.call(keyToken, 'GET', '/v1/integration-collections');
    expect(list.status).toBe(200);
    expect(list.body.collections).toHaveLength(1);
    collectionId = list.body.collections[0].collection_id;
    expect(list.body.collections[0]).toMatchObject({
      org_id: k.org.orgId,
      kind: 'default',
      status: 'active',
      retention_days: 90,
      unique_identity_count: null,
      count_refreshed_at: null,
      last_captured_at: null,
    });

    const outcome = await k.refresh(k.org.orgId);
    expect(outcome).toMatchObject({ completed: 1, failed: 0, waiting: 0, collections: 1 });
    const run = (await k.call(keyToken, 'GET', `/v1/integration-runs/${created.integration_run_id}`)).body;
    expect(run).toMatchObject({
      status: 'completed',
      counts: { input: 65, matched: 60, delivered: 0, applied: 0, unchanged: 0, skipped: 0, failed: 0 },
    });
    expect(run.counts.matched).toBeLessThanOrEqual(run.counts.input);
    expect(await k.events(created.integration_run_id)).toEqual([
      {
        type: 'integration_run.completed',
        data: {
          status: 'completed',
          run_id: created.integration_run_id,
          provider: 'oauth_partner',
          connection_id: k.partner.client_id,
          kind: 'file_enrichment',
          billing_source: 'native',
          counts: run.counts,
          failure_code: null,
          failure_message: null,
          completed_at: run.completed_at,
        },
      },
    ]);
    expect(run.boundary_at).toBe(k.server.clock.now().toISOString());
    const got = (await k.call(keyToken, 'GET', `/v1/integration-collections/${collectionId}`)).body;
    expect(got.unique_identity_count).toBe(shownCollectionCount(collectionId, {}, 60));
    expect(got.last_captured_at).toBe(k.server.clock.now().toISOString());
    expect(got.count_refreshed_at).toBe(k.server.clock.now().toISOString());
    // A second pass settles nothing again and captures nothing twice.
    expect(await k.refresh(k.org.orgId)).toMatchObject({ completed: 0 });
    const { database } = await testStores();
    const rows = await database.db
      .selectFrom('integration_collection_identities')
      .select('person_key')
      .where('collection_id', '=', collectionId)
      .execute();
    expect(rows).toHaveLength(60);
  }, 90_000);

  it('deliveries of the match carry integration_run_id', async () => {
    const res = await k.call(keyToken, 'POST', `/v1/match/${created.segment_id}/deliveries`, { field_list: ['age'] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.integration_run_id).toBe(created.integration_run_id);
    expect(res.body.matched_segment_id).toBe(created.segment_id);
    const read = await k.call(keyToken, 'GET', `/v1/audiences/${created.audience_id}/deliveries/${res.body.delivery_id}`);
    expect(read.body.integration_run_id).toBe(created.integration_run_id);
  });

  it('counts with the collection filter: by run, provider, source kind and date range', async () => {
    const count = async (filter: object) => {
      const res = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, filter);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const all = await count({});
    const runFilter = {
      integration_run_ids: [created.integration_run_id],
      source_kinds: ['file' as const],
      providers: ['oauth_partner'],
      connection_ids: [k.partner.client_id],
    };
    const byRun = await count(runFilter);
    expect(byRun.unique_identity_count).toBe(shownCollectionCount(collectionId, runFilter, 60));
    expect(all.unique_identity_count).toBe(shownCollectionCount(collectionId, {}, 60));
    // Sticky: the same selection asked again is the same question, the same shown number.
    expect(
      (
        await count({
          integration_run_ids: [created.integration_run_id],
          source_kinds: ['file'],
          providers: ['oauth_partner'],
          connection_ids: [k.partner.client_id],
        })
      ).unique_identity_count,
    ).toBe(byRun.unique_identity_count);
    const now = k.server.clock.now().getTime();
    const range = { boundary_at_from: new Date(now - DAY).toISOString(), boundary_at_to: new Date(now + DAY).toISOString() };
    const inRange = await count(range);
    expect(inRange.unique_identity_count).toBe(shownCollectionCount(collectionId, range, 60));
    for (const filter of [
      { providers: ['hubspot'] },
      { source_kinds: ['batch', 'recurring'] },
      { boundary_at_to: new Date(now - DAY).toISOString() },
    ]) {
      expect(await count(filter)).toMatchObject({ unique_identity_count: null, count_reason: 'below_privacy_floor' });
    }
    const reversed = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, {
      boundary_at_from: new Date(now).toISOString(),
      boundary_at_to: new Date(now - DAY).toISOString(),
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({ error: 'INVALID_COLLECTION_FILTER' });
  });

  it('accepts each filter array at its limit and refuses limit + 1 with the error envelope', async () => {
    const limits = { providers: 20, connection_ids: 100, integration_run_ids: 100, source_kinds: 3 } as const;
    const values = (field: keyof typeof limits, n: number) =>
      field === 'source_kinds' ? ['recurring', 'batch', 'file', 'file'].slice(0, n) : ids(`${field}-`, n);
    for (const [field, limit] of Object.entries(limits) as [keyof typeof limits, number][]) {
      const ok = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, { [field]: values(field, limit) });
      expect(ok.status, `${field} at ${limit}: ${JSON.stringify(ok.body)}`).toBe(200);
      const over = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, {
        [field]: values(field, limit + 1),
      });
      expect(over.status, `${field} at ${limit + 1}`).toBe(400);
      expect(over.body.error).toBeTruthy();
      expect(over.body.message).toMatch(new RegExp(field));
      expect(over.body.request_id).toBeTruthy();
      const seg = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/segments`, {
        name: 'over',
        filter: { [field]: values(field, limit + 1) },
      });
      expect(seg.status).toBe(400);
    }
    const extra = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, {
      providers: ['x'],
      unknown_field: 1,
    });
    expect(extra.status).toBe(400);
  });

  it("creates an active matched segment from the collection whose record_count is the filter's count", async () => {
    const filter = { integration_run_ids: [created.integration_run_id] };
    const counted = (await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/count`, filter)).body;
    const res = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/segments`, { name: 'Partner matches', filter });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      subtype: 'matched',
      status: 'active',
      name: 'Partner matches',
      record_count: counted.unique_identity_count,
    });
    expect(res.body.audience_id).toMatch(/^aud_/);
    const seg = (await k.call(keyToken, 'GET', `/v1/segments/${res.body.segment_id}`)).body;
    expect(seg).toMatchObject({ status: 'active', record_count: counted.unique_identity_count });
    const audience = (await k.call(keyToken, 'GET', `/v1/audiences/${res.body.audience_id}`)).body;
    expect(audience).toMatchObject({ status: 'active', record_count: counted.unique_identity_count });
    // Delivered like any audience (no file-match run behind it: no integration_run_id).
    const delivery = await k.call(keyToken, 'POST', `/v1/audiences/${res.body.audience_id}/deliveries`, { field_list: ['age'] });
    expect(delivery.status, JSON.stringify(delivery.body)).toBe(202);
    expect(delivery.body.integration_run_id).toBeUndefined();
    const empty = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/segments`, {
      name: 'Nobody',
      filter: { providers: ['hubspot'] },
    });
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({ error: 'INTEGRATION_COLLECTION_SELECTION_EMPTY' });
  });

  it('pauses and resumes (active <-> paused), refusing a repeated move; a run completing while paused is not captured', async () => {
    const before = (await k.call(keyToken, 'GET', `/v1/integration-collections/${collectionId}`)).body;
    const paused = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    const again = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/pause`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'INVALID_STATUS_TRANSITION' });
    const second = await k.call(
      partnerToken,
      'POST',
      '/v1/match/file',
      { name: 'While paused' },
      { 'x-integration-execution-key': 'exec-2026-11-24-0002' },
    );
    expect(second.status).toBe(201);
    expect(await k.put(second.body.upload_url, toCsv(await k.people(55)))).toBe(200);
    await k.waitResolved(keyToken, second.body.segment_id);
    expect(await k.refresh(k.org.orgId)).toMatchObject({ completed: 1 });
    const run = (await k.call(keyToken, 'GET', `/v1/integration-runs/${second.body.integration_run_id}`)).body;
    expect(run).toMatchObject({ status: 'completed', counts: { input: 55, matched: 55 } });
    const { database } = await testStores();
    expect(
      await database.db
        .selectFrom('integration_collection_identities')
        .select('person_key')
        .where('run_id', '=', second.body.integration_run_id)
        .execute(),
    ).toHaveLength(0);
    expect((await k.call(keyToken, 'GET', `/v1/integration-collections/${collectionId}`)).body.last_captured_at).toBe(
      before.last_captured_at,
    );
    const resumed = await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('active');
    expect((await k.call(keyToken, 'POST', `/v1/integration-collections/${collectionId}/resume`)).status).toBe(409);
  });

  it('fails a partner run whose match failed, capturing nothing', async () => {
    const third = await k.call(
      partnerToken,
      'POST',
      '/v1/match/file',
      { name: 'Will fail' },
      { 'x-integration-execution-key': 'exec-2026-11-24-0003' },
    );
    expect(third.status).toBe(201);
    expect(
      (await k.call(keyToken, 'POST', `/v1/segments/${third.body.segment_id}/upload-failed`, { reason: 'partner export broke' })).status,
    ).toBe(200);
    expect(await k.refresh(k.org.orgId)).toMatchObject({ failed: 1 });
    const run = (await k.call(keyToken, 'GET', `/v1/integration-runs/${third.body.integration_run_id}`)).body;
    expect(run).toMatchObject({ status: 'failed', failure_code: 'MATCH_FAILED', counts: { input: 0, matched: 0 } });
    expect(run.failure_message).toMatch(/partner export broke/);
    expect((await k.events(third.body.integration_run_id)).map((e) => [e.type, e.data.failure_code])).toEqual([
      ['integration_run.failed', 'MATCH_FAILED'],
    ]);
  });

  it('keeps collections to their organization (404) and checks scopes (403 SCOPE_REQUIRED)', async () => {
    const other = await createTestOrg(k.server);
    const otherToken = await other.token();
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['POST', '/count', {}],
      ['POST', '/pause', undefined],
      ['POST', '/segments', { name: 'steal' }],
    ] as const) {
      const res = await k.call(otherToken, method, `/v1/integration-collections/${collectionId}${path}`, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ error: 'INTEGRATION_COLLECTION_NOT_FOUND' });
    }
    const own = (await k.call(otherToken, 'GET', '/v1/integration-collections')).body.collections;
    expect(own).toHaveLength(1);
    expect(own[0].collection_id).not.toBe(collectionId);
    const reader = await k.org.token(['discovery']);
    expect((await k.call(reader, 'GET', `/v1/integration-collections/${collectionId}`)).status).toBe(200);
    expect((await k.call(reader, 'POST', `/v1/integration-collections/${collectionId}/count`, {})).status).toBe(200);
    for (const [path, body] of [
      ['/pause', undefined],
      ['/resume', undefined],
      ['/segments', { name: 'x' }],
    ] as const) {
      const res = await k.call(reader, 'POST', `/v1/integration-collections/${collectionId}${path}`, body);
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ error: 'SCOPE_REQUIRED' });
    }
    const account = await k.org.token(['account']);
    expect((await k.call(account, 'GET', '/v1/integration-collections')).body).toMatchObject({ error: 'SCOPE_REQUIRED' });
  });

  it('expires captured identities after the 90-day retention (service clock)', async () => {
    const { database } = await testStores();
    k.server.clock.advance(90 * DAY - 60_000);
    let token = await k.org.token(['discovery', 'creator']);
    await k.refresh(k.org.orgId);
    expect((await k.call(token, 'GET', `/v1/integration-collections/${collectionId}`)).body.unique_identity_count).toBe(
      shownCollectionCount(collectionId, {}, 60),
    );
    k.server.clock.advance(60_000);
    token = await k.org.token(['discovery', 'creator']);
    // Counted by the clock at once, before the job deletes them.
    expect((await k.call(token, 'POST', `/v1/integration-collections/${collectionId}/count`, {})).body).toMatchObject({
      unique_identity_count: null,
      count_reason: 'below_privacy_floor',
    });
    expect(await k.refresh(k.org.orgId)).toMatchObject({ expired: 60 });
    expect((await k.call(token, 'GET', `/v1/integration-collections/${collectionId}`)).body).toMatchObject({
      unique_identity_count: null,
      count_refreshed_at: k.server.clock.now().toISOString(),
    });
    expect(
      await database.db
        .selectFrom('integration_collection_identities')
        .select('person_key')
        .where('collection_id', '=', collectionId)
        .execute(),
    ).toHaveLength(0);
    const seg = await k.call(token, 'POST', `/v1/integration-collections/${collectionId}/segments`, { name: 'After expiry' });
    expect(seg.status).toBe(422);
  });
});
