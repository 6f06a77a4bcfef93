/**
 * Capture of the organization's own integration runs into its match collection (spec 2, "Integration match
 * collection"; decision 050): a completed batch_enrichment run's matched contacts are identities of source
 * kind `batch`, counted through the privacy layer with the collection filter, captured once however often
 * the run's job is replayed, and not at all while the collection is paused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../src/lib/clock.ts';
import { testStores } from '../helpers/stores.ts';
import { NOBODY, pickPersons, type Row } from '../match-api/setup.ts';
import { contactOf, expectEquations, setup, shownCollectionCount, type IntegrationTest } from './setup.ts';

let k: IntegrationTest;
let people: Row[];
let token: string;
let orgId: string;
let hubId: number;
let collectionId: string;

const identities = async (runId: string) =>
  (await testStores()).database.db
    .selectFrom('integration_collection_identities')
    .select(['collection_id', 'person_key', 'provider', 'connection_id', 'source_kind', 'boundary_at', 'captured_at', 'expires_at'])
    .where('run_id', '=', runId)
    .execute();
const capturedAt = async (runId: string) =>
  (
    await (
      await testStores()
    ).database.db
      .selectFrom('integration_runs')
      .select('captured_at')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow()
  ).captured_at;

beforeAll(async () => {
  k = await setup();
  people = await pickPersons(k, 70);
  const made = await k.newOrg('growth');
  token = await made.org.token(['discovery', 'creator', 'account']);
  orgId = made.org.orgId;
  hubId = k.hs.addHub('capture.hubspot.com', [
    ...people.map((p) => contactOf(p)),
    { firstname: NOBODY.first_name, lastname: NOBODY.last_name, email: NOBODY.email },
  ]);
  expect((await k.connect(token, hubId)).status).toBe(201);
  const list = await k.as(token)('GET', '/v1/integration-collections');
  collectionId = list.body.collections[0].collection_id;
}, 180_000);
afterAll(async () => k?.close());

const count = async (filter: object) => {
  const res = await k.as(token)('POST', `/v1/integration-collections/${collectionId}/count`, filter);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const batchRun = async () => {
  const created = await k.as(token)('POST', '/v1/integration-runs', {
    provider: 'hubspot',
    kind: 'batch_enrichment',
    selected_fields: ['age'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return k.runJob(token, created.body.run_id);
};

describe('a completed batch_enrichment run', () => {
  let run: any;

  it('captures its matched persons as identities of source kind batch, counted with source_kinds [batch]', async () => {
    run = await batchRun();
    expect(run.status).toBe('completed');
    expect(run.counts).toMatchObject({ input: 71, matched: 70 });
    expectEquations(run);

    const rows = await identities(run.run_id);
    expect(rows).toHaveLength(70);
    expect(new Set(rows.map((r) => String(r.person_key))).size).toBe(70);
    const captured = await capturedAt(run.run_id);
    expect(captured).not.toBeNull();
    for (const r of rows) {
      expect(r).toMatchObject({ collection_id: collectionId, provider: 'hubspot', connection_id: run.connection_id, source_kind: 'batch' });
      expect(new Date(r.boundary_at).toISOString()).toBe(run.boundary_at);
      expect(new Date(r.expires_at).getTime() - new Date(r.captured_at).getTime()).toBe(90 * DAY);
    }

    expect((await count({ source_kinds: ['batch'] })).unique_identity_count).toBe(
      shownCollectionCount(collectionId, { source_kinds: ['batch'] }, 70),
    );
    expect(
      (await count({ integration_run_ids: [run.run_id], providers: ['hubspot'], connection_ids: [run.connection_id] }))
        .unique_identity_count,
    ).toBe(
      shownCollectionCount(
        collectionId,
        { integration_run_ids: [run.run_id], providers: ['hubspot'], connection_ids: [run.connection_id] },
        70,
      ),
    );
    for (const filter of [{ source_kinds: ['file', 'recurring'] }, { providers: ['mailchimp'] }]) {
      expect(await count(filter)).toMatchObject({ unique_identity_count: null, count_reason: 'below_privacy_floor' });
    }
    const got = (await k.as(token)('GET', `/v1/integration-collections/${collectionId}`)).body;
    expect(got).toMatchObject({ status: 'active', last_captured_at: new Date(captured!).toISOString() });
  });

  it('is captured once: a replayed job changes neither the run nor its identities', async () => {
    const before = await identities(run.run_id);
    const capture = await capturedAt(run.run_id);
    const replay = await k.runJob(token, run.run_id);
    expect(replay).toEqual(run);
    expect(await identities(run.run_id)).toEqual(before);
    expect(await capturedAt(run.run_id)).toEqual(capture);
  });

  it('a second run over the same contacts adds its own rows; the collection counts each person once', async () => {
    const second = await batchRun();
    expect(second.status).toBe('completed');
    expect(await identities(second.run_id)).toHaveLength(70);
    expect((await count({ source_kinds: ['batch'] })).unique_identity_count).toBe(
      shownCollectionCount(collectionId, { source_kinds: ['batch'] }, 70),
    );
  });

  it('a file_enrichment run is captured with source kind file', async () => {
    const created = await k.as(token)('POST', '/v1/integration-runs', {
      provider: 'hubspot',
      kind: 'file_enrichment',
      selected_fields: ['age'],
    });
    expect(created.status).toBe(202);
    const file = await k.runJob(token, created.body.run_id);
    expect(file.status).toBe('completed');
    const rows = await identities(file.run_id);
    expect(rows).toHaveLength(70);
    expect(new Set(rows.map((r) => r.source_kind))).toEqual(new Set(['file']));
    expect((await count({ source_kinds: ['file'] })).unique_identity_count).toBe(
      shownCollectionCount(collectionId, { source_kinds: ['file'] }, 70),
    );
  });

  it('is not captured while the collection is paused, and resuming does not back-fill it', async () => {
    expect((await k.as(token)('POST', `/v1/integration-collections/${collectionId}/pause`)).status).toBe(200);
    const paused = await batchRun();
    expect(paused.status).toBe('completed');
    expect(await identities(paused.run_id)).toHaveLength(0);
    expect(await capturedAt(paused.run_id)).toBeNull();
    expect(await count({ integration_run_ids: [paused.run_id] })).toMatchObject({
      unique_identity_count: null,
      count_reason: 'below_privacy_floor',
    });
    expect((await k.as(token)('POST', `/v1/integration-collections/${collectionId}/resume`)).status).toBe(200);
    await k.runJob(token, paused.run_id);
    expect(await identities(paused.run_id)).toHaveLength(0);
  });
});
