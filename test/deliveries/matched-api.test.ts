/**
 * Deliveries of a file match over HTTP (spec 4.5 workflow: create, upload, resolve, then
 * POST /v1/match/{match_id}/deliveries): rows carry the customer's row_id, unmatched rows only with
 * include_unmatched, and the run's deferred match cost is charged on its first successful delivery only.
 * No reverse lookup (issue #31, decision 051): rows matched below I carry no identity field they did not supply.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { setupWithEvents, toCsv } from '../file-match/helpers.ts';
import { pickPersons, title, type Row } from '../match-api/setup.ts';
import { testStores } from '../helpers/stores.ts';
import { waitFor } from '../webhooks/helpers.ts';

type Fixture = Awaited<ReturnType<typeof setupWithEvents>>;
let fx: Fixture;
let stopDeliveries: () => Promise<void>;

beforeAll(async () => {
  fx = await setupWithEvents();
  const { queue } = await testStores();
  const def = fx.f.t.services.deliveries.jobDefinitions()[0] as JobDefinition;
  await queue.ensureQueue(def.name, def.queue);
  // The queue is shared by the test files of this vitest worker: exports other files left queued are
  // acknowledged, not run against this file's app (their data folder is another one).
  const id = await queue.work<any>(
    def.name,
    { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true } as never,
    async (jobs) => {
      for (const job of jobs) {
        if (job.data?.orgId !== fx.f.org.orgId) continue;
        await def.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
      }
    },
  );
  stopDeliveries = () => queue.boss.offWork(def.name, { id });
}, 180_000);
afterAll(async () => {
  await stopDeliveries?.();
  await fx?.close();
});

async function ledger(orgId: string) {
  const { database } = await testStores();
  return database.db
    .selectFrom('usage_ledger')
    .select(['id', 'kind', 'quantity', 'amount_cents', 'status'])
    .where('org_id', '=', orgId)
    .execute();
}

/** The delivery once it left processing (it must have completed) and the rows of its first CSV part. */
async function completed(audienceId: string, deliveryId: string) {
  const { f } = fx;
  let d: any;
  await waitFor(async () => {
    d = (await f.call('GET', `/v1/audiences/${audienceId}/deliveries/${deliveryId}`)).body;
    return d.status !== 'processing';
  }, 90_000);
  expect(d.status).toBe('completed');
  const file = await f.t.app.inject({ method: 'GET', url: d.download_urls[0].replace(/^https?:\/\/[^/]+/, '') });
  return { d, rows: parse(file.rawPayload, { columns: true }) as Record<string, string>[] };
}

describe('file-match deliveries', () => {
  it('delivers row_id with every row, unmatched rows on request, and charges the match run once', { timeout: 120_000 }, async () => {
    const { f, p } = fx;
    const c = await f.create({});
    expect((await f.put(c.upload_url, toCsv([...p.good, ...p.nobody]))).status).toBe(200);
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed']);
    expect(done.matching_status).toBe('completed');
    const matchCount = done.match_count as number;
    const members = (await f.call('GET', `/v1/segments/${c.segment_id}`)).body.record_count as number;

    // The deferred file-match cost is in the quote until the run is first delivered (enterprise: 1 cent less 15%).
    const matchCents = Math.round((matchCount * 8500) / 10_000);
    const quoted = (await f.call('POST', `/v1/audiences/${c.audience_id}/deliveries/quote`, { field_list: ['age'] })).body;
    expect(quoted.cost_estimate.match_cost).toBe(matchCents / 100);
    expect(quoted.max_cost_estimate.match_cost).toBe(matchCents / 100);
    const res = await f.call('POST', `/v1/match/${c.match_id}/deliveries`, { field_list: ['age'], include_unmatched: true });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      audience_id: c.audience_id,
      matched_segment_id: c.segment_id,
      source_job_id: `${c.segment_id}.v1`,
      include_unmatched: true,
    });
    const { d, rows } = await completed(c.audience_id, res.body.delivery_id);
    expect(Object.keys(rows[0]!).slice(0, 3)).toEqual(['row_id', 'iag_person_id', 'age']);
    // Every input row, in the customer's order; the invented people have no tier-01 id.
    expect(rows.map((r) => r.row_id)).toEqual([...p.good, ...p.nobody].map((r) => r.row_id));
    expect(d.output_record_count).toBe(p.good.length + p.nobody.length);
    expect(rows.filter((r) => r.row_id.startsWith('n')).every((r) => !/_01_/.test(r.iag_person_id!))).toBe(true);

    const first = await ledger(f.org.orgId);
    const settled = first.filter((r) => r.status === 'settled');
    // Enterprise terms: the run at 1 cent a matched record, members at 2 cents, less 15%.
    expect(settled.find((r) => r.kind === 'match.file')).toMatchObject({ quantity: matchCount, amount_cents: matchCents });
    expect(d.cost).toBe((matchCents + Math.round((2 * members * 8500) / 10_000)) / 100);
    expect(
      (await f.call('POST', `/v1/audiences/${c.audience_id}/deliveries/quote`, { field_list: ['age'] })).body.cost_estimate.match_cost,
    ).toBe(0);
    expect(settled.find((r) => r.kind === 'audience_delivery.matched')).toMatchObject({
      quantity: members,
      amount_cents: Math.round((2 * members * 8500) / 10_000),
    });

    // Without unmatched rows: only the matched rows; the run is not charged again.
    f.clock.advance(1000); // newest first needs distinct creation times
    const again = await f.call('POST', `/v1/match/${c.match_id}/deliveries`, { field_list: ['age'] });
    expect(again.status).toBe(202);
    await waitFor(
      async () => (await f.call('GET', `/v1/audiences/${c.audience_id}/deliveries/${again.body.delivery_id}`)).body.status === 'completed',
      60_000,
    );
    const later = (await ledger(f.org.orgId)).filter((r) => !first.some((x) => x.id === r.id));
    expect(later.filter((r) => r.kind === 'match.file')).toEqual([]);
    // The members are licensed by the first delivery: the second bills none of them.
    expect(later.filter((r) => r.status === 'settled')).toMatchObject([
      { kind: 'audience_delivery.matched', quantity: 0, amount_cents: 0 },
    ]);
    const list = (await f.call('GET', `/v1/match/${c.match_id}/deliveries`)).body.deliveries;
    expect(list.map((x: any) => x.delivery_id)).toEqual([again.body.delivery_id, res.body.delivery_id]);
    const second = list[0];
    expect(second.output_record_count).toBeLessThan(p.good.length + p.nobody.length);
  });
});

describe('delivery of a file match of address-only rows (issue #31, decision 051)', () => {
  it(
    'standard_iag carries no identity field the rows did not supply; I rows keep theirs; A ids refresh nothing',
    { timeout: 150_000 },
    async () => {
      const { f } = fx;
      const persons = await pickPersons(f, 8);
      const addressOnly = persons
        .slice(0, 6)
        .map((p, i) => ({ row_id: `a${i}`, address_1: title(p.address_1), city: title(p.city), state: p.state, zip: p.zip5, email: '' }));
      const honest = persons.slice(6).map((p, i) => ({
        row_id: `i${i}`,
        address_1: '',
        city: '',
        state: '',
        zip: '',
        email: p.email,
        first_name: title(p.first_name),
        last_name: title(p.last_name),
      }));
      const rows = [...addressOnly.map((r) => ({ ...r, first_name: '', last_name: '' })), ...honest];
      const c = await f.create({});
      expect(
        (await f.put(c.upload_url, toCsv(rows, ['row_id', 'first_name', 'last_name', 'email', 'address_1', 'city', 'state', 'zip'])))
          .status,
      ).toBe(200);
      expect(await f.waitStatus(c.segment_id, ['completed', 'failed'])).toMatchObject({ matching_status: 'completed' });

      const res = await f.call('POST', `/v1/match/${c.match_id}/deliveries`, { template_id: 'standard_iag' });
      expect(res.status).toBe(202);
      const { rows: out } = await completed(c.audience_id, res.body.delivery_id);
      const byRow = new Map(out.map((r) => [r.row_id, r]));

      const resident = persons.slice(0, 6);
      const delivered = addressOnly.map((r, i) => ({ row: byRow.get(r.row_id), p: resident[i]! })).filter((x) => x.row);
      expect(delivered.length).toBeGreaterThan(0);
      for (const { row } of delivered) {
        for (const k of ['first_name', 'middle_name', 'last_name', 'name_suffix', 'dob', 'address_1', 'address_2'])
          expect(row![k]).toBe('');
        // The place may come back (the row gave it): decision 051.
        expect(row!.zip5).not.toBe('');
      }
      // The honest rows (name + email: I) keep the identity fields of the person they identified.
      for (const [i, p] of persons.slice(6).entries()) {
        const row = byRow.get(`i${i}`);
        expect(row).toMatchObject({ last_name: p.last_name, dob: p.dobs });
      }
      // A delivered id of an address-only row refreshes nothing; an I row's id refreshes at I without identity.
      const refresh = await f.match({
        records: [
          { row_id: 'a', iag_person_id: delivered[0]!.row!.iag_person_id },
          { row_id: 'i', iag_person_id: byRow.get('i0')!.iag_person_id },
        ],
        template_id: 'standard_iag',
      });
      const [a, i] = refresh.body.records;
      expect(a.match_level).toBeNull();
      expect(a.warnings.map((w: Row) => w.code)).toContain('person_id_not_usable');
      expect(i).toMatchObject({ match_level: 'I', match_type: 'person_id' });
      expect(i.enriched_last_name ?? null).toBeNull();
    },
  );
});

/** Identity fields of standard_iag a row below I must not carry (decision 051). */
const IDENTITY = ['first_name', 'middle_name', 'last_name', 'name_suffix', 'dob', 'address_1', 'address_2'];

/** Address-only input rows of graph persons (they match at A, or S for a nearby number). */
const addressOnlyRows = (persons: Row[], prefix: string) =>
  persons.map((p, i) => ({
    row_id: `${prefix}${i}`,
    first_name: '',
    last_name: '',
    email: '',
    address_1: title(p.address_1),
    city: title(p.city),
    state: p.state,
    zip: p.zip5,
  }));

/** A file match of these rows, resolved. */
async function fileMatchOf(rows: Row[]) {
  const { f } = fx;
  const c = await f.create({});
  expect(
    (await f.put(c.upload_url, toCsv(rows, ['row_id', 'first_name', 'last_name', 'email', 'address_1', 'city', 'state', 'zip']))).status,
  ).toBe(200);
  expect(await f.waitStatus(c.segment_id, ['completed', 'failed'])).toMatchObject({ matching_status: 'completed' });
  return c;
}

/** Delivers the audience with standard_iag; the rows of its CSV. */
async function deliverIag(audienceId: string) {
  const res = await fx.f.call('POST', `/v1/audiences/${audienceId}/deliveries`, { template_id: 'standard_iag' });
  expect(res.status).toBe(202);
  return (await completed(audienceId, res.body.delivery_id)).rows;
}

describe("matched members without the first run's rows (issue #31, decision 051)", () => {
  it(
    'a second matched segment of address-only rows in the audience: its members carry no identity field and their ids refresh nothing',
    { timeout: 200_000 },
    async () => {
      const { f } = fx;
      const persons = await pickPersons(f, 16);
      const honest = persons.slice(8, 11).map((p, i) => ({
        row_id: `h${i}`,
        first_name: title(p.first_name),
        last_name: title(p.last_name),
        email: p.email,
        address_1: '',
        city: '',
        state: '',
        zip: '',
      }));
      const first = await fileMatchOf(honest);
      const second = await fileMatchOf(addressOnlyRows(persons.slice(11, 16), 'b'));
      const aud = await f.call('POST', '/v1/audiences', { name: 'two lists', segment_ids: [first.segment_id, second.segment_id] });
      expect(aud.status).toBe(201);
      const rows = await deliverIag(aud.body.audience_id);
      // The first list's rows keep row_id; the second list's members come after them, without one.
      const own = rows.filter((r) => r.row_id !== '');
      const others = rows.filter((r) => r.row_id === '');
      expect(own.length).toBe(honest.length);
      expect(others.length).toBeGreaterThan(0);
      for (const p of persons.slice(8, 11)) expect(own.some((r) => r.last_name === p.last_name && r.dob === p.dobs)).toBe(true);
      for (const r of others) {
        for (const k of IDENTITY) expect(r[k], `${k} of a member matched by address only`).toBe('');
        expect(r.zip5).not.toBe('');
      }
      // Their ids carry the level that matched them: refreshing one is refused.
      const refresh = await f.match({ records: [{ row_id: 'x', iag_person_id: others[0]!.iag_person_id }] });
      expect(refresh.body.records[0].match_level).toBeNull();
      expect(refresh.body.records[0].warnings.map((w: Row) => w.code)).toContain('person_id_not_usable');
    },
  );

  it(
    'a scratch segment of POST /v1/match of address-only records, delivered in an audience: no identity field, ids refresh nothing',
    { timeout: 150_000 },
    async () => {
      const { f } = fx;
      const persons = (await pickPersons(f, 24)).slice(16, 22);
      const records = addressOnlyRows(persons, 's').map(({ row_id, address_1, city, state, zip }) => ({
        row_id,
        address_1,
        city,
        state,
        zip,
      }));
      const m = await f.match({ records, create_scratch_segment: true, field_list: ['zip5'] });
      expect(m.status).toBe(200);
      expect(m.body.records.every((r: Row) => r.match_level === null || ['A', 'S'].includes(r.match_level))).toBe(true);
      const scratch = m.body.scratch_segment;
      expect(scratch?.segment_id).toBeTruthy();
      const aud = await f.call('POST', '/v1/audiences', { name: 'scratch', segment_ids: [scratch.segment_id] });
      expect(aud.status).toBe(201);
      const rows = await deliverIag(aud.body.audience_id);
      expect(rows.length).toBe(scratch.record_count);
      for (const r of rows) {
        for (const k of IDENTITY) expect(r[k], `${k} of a scratch member matched by address only`).toBe('');
        expect(r.zip5).not.toBe('');
      }
      const refresh = await f.match({ records: [{ row_id: 'x', iag_person_id: rows[0]!.iag_person_id }] });
      expect(refresh.body.records[0].match_level).toBeNull();
    },
  );
});

describe('lists beside filter segments, and members without known levels (issue #31, decision 051)', () => {
  /** A scratch segment of address-only records of these persons. */
  async function scratchOf(persons: Row[], prefix: string) {
    const records = addressOnlyRows(persons, prefix).map(({ row_id, address_1, city, state, zip }) => ({
      row_id,
      address_1,
      city,
      state,
      zip,
    }));
    const m = await fx.f.match({ records, create_scratch_segment: true, field_list: ['zip5'] });
    expect(m.status).toBe(200);
    return m.body.scratch_segment as Row;
  }

  it(
    "intersected with a wide filter segment, an address-only list still carries no identity field; in a union the filter segment's members do",
    { timeout: 150_000 },
    async () => {
      const { f } = fx;
      const persons = (await pickPersons(f, 30)).slice(24, 28);
      const list = await scratchOf(persons, 'w');
      const states = [...new Set(persons.map((p) => p.state as string))];
      const wide = await f.call('POST', '/v1/segments', {
        name: 'states',
        filters: [{ field: 'state', op: 'IN', value: states }],
        create_audience: false,
      });
      expect(wide.status).toBe(201);
      const both = await f.call('POST', '/v1/audiences', {
        name: 'narrowed',
        segment_ids: [wide.body.segment_id, list.segment_id],
        set_logic: 'intersection',
      });
      expect(both.status).toBe(201);
      const rows = await deliverIag(both.body.audience_id);
      expect(rows.length).toBe(list.record_count);
      for (const r of rows) for (const k of IDENTITY) expect(r[k], `${k} of a list member narrowed by a filter segment`).toBe('');

      // A union: the filter segment selected its members itself, so they are delivered as that segment alone would be.
      f.clock.advance(1000);
      const union = await f.call('POST', '/v1/audiences', { name: 'union', segment_ids: [wide.body.segment_id, list.segment_id] });
      const all = await deliverIag(union.body.audience_id);
      expect(all.filter((r) => r.last_name !== '').length).toBeGreaterThan(list.record_count);
    },
  );

  it(
    'a list member whose level is not known carries only the fields every level may (state, zip3): no identity, no ZIP5',
    { timeout: 150_000 },
    async () => {
      const { f } = fx;
      const persons = (await pickPersons(f, 34)).slice(30, 34);
      const list = await scratchOf(persons, 'u');
      // As a scratch segment written before levels were kept beside its members.
      fs.rmSync(path.join(f.dataDir, 'objects', 'segments', list.segment_id, 'levels-v1.parquet'), { force: true });
      const aud = await f.call('POST', '/v1/audiences', { name: 'no levels', segment_ids: [list.segment_id] });
      const rows = await deliverIag(aud.body.audience_id);
      expect(rows.length).toBe(list.record_count);
      for (const r of rows) {
        for (const k of [...IDENTITY, 'zip5', 'city']) expect(r[k], `${k} of a member without a known level`).toBe('');
        expect(r.state).not.toBe('');
      }
      const refresh = await f.match({ records: [{ row_id: 'x', iag_person_id: rows[0]!.iag_person_id }] });
      expect(refresh.body.records[0].match_level).toBeNull();
    },
  );
});
