/** Upload real files in every format, raw and gzip, single and sharded, through the signed URLs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../webhooks/helpers.ts';
import { gz, setupWithEvents, toAvro, toCsv, toJsonl, type FileTest, type People } from './helpers.ts';

type Fixture = Awaited<ReturnType<typeof setupWithEvents>>;

let f: FileTest;
let p: People;
let receiver: Fixture['receiver'];
let fixture: Fixture;

beforeAll(async () => {
  fixture = await setupWithEvents();
  ({ f, p, receiver } = fixture);
});
afterAll(async () => {
  await fixture.close();
});

const all = () => [...p.good, ...p.nobody];

async function expectCompleted(created: any, rows = 25, matched = 20) {
  const done = await f.waitStatus(created.segment_id, ['completed', 'failed']);
  expect(done.error_message).toBeNull();
  expect(done).toMatchObject({ matching_status: 'completed', status: 'active', input_record_count: rows, match_count: matched });
  expect(done.progress).toMatchObject({ rows_read: rows, rows_matched: matched });
  const seg = (await f.call('GET', `/v1/segments/${created.segment_id}`)).body;
  expect(seg).toMatchObject({
    status: 'active',
    subtype: 'matched',
    input_record_count: rows,
    match_count: matched,
    match_rate: Math.round((matched / rows) * 1e4) / 1e4,
  });
  expect(seg.record_count).toBe(matched);
  expect(seg.column_mappings).toMatchObject({ first_name: 'first_name', last_name: 'last_name' });
  if (created.audience_id) {
    const aud = (await f.call('GET', `/v1/audiences/${created.audience_id}`)).body;
    expect(aud).toMatchObject({ status: 'active', match_count: matched, input_record_count: rows, matched_record_count: matched });
  }
  return done;
}

describe('file match through signed upload URLs', () => {
  it('creates with the defaults of 4.5 and resolves a raw CSV, emitting segment.ready', async () => {
    const c = await f.create({ webhook_url: receiver.url });
    expect(c).toMatchObject({
      status: 'pending',
      subtype: 'matched',
      file_format: 'csv',
      compression: 'none',
      shard_count: 1,
      match_id: c.segment_id,
    });
    expect(c.name).toMatch(/^File Match \d{4}-\d{2}-\d{2}T/);
    expect(c.audience_id).toMatch(/^aud_/);
    expect(c.upload_url).toContain(`/v1/uploads/`);
    expect(c.upload_urls).toBeUndefined();
    expect(new Date(c.upload_expires_at).getTime() - f.clock.now().getTime()).toBe(30 * 60_000);
    expect((await f.call('GET', `/v1/match/file/${c.segment_id}`)).body.matching_status).toBe('awaiting_upload');
    const up = await f.put(c.upload_url, toCsv(all()));
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ shards_uploaded: 1, shard_count: 1, matching_status: 'queued' });
    await expectCompleted(c);
    // The customer's own list alone is exact (20, below the floor); counted by a graph attribute it is
    // graph-derived and goes through the privacy layer: a 20-person upload by income band is refused.
    const byBand = await f.call('POST', '/v1/discovery/count', { segment_id: c.segment_id, group_by: 'income_band' });
    expect(byBand.status, JSON.stringify(byBand.body)).toBe(422);
    expect(byBand.body).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET', privacy_floor: 50 });
    // A matched segment intersected with a filter segment is graph-derived too: not shown below the floor,
    // in discovery and as an audience's record_count, while the list alone stays exact (20 below).
    const adults = await f.call('POST', '/v1/segments', {
      name: 'any age',
      filters: [{ field: 'age', op: '>=', value: 0 }],
      create_audience: false,
    });
    expect(adults.status, JSON.stringify(adults.body)).toBe(201);
    const both = { segment_ids: [c.segment_id, adults.body.segment_id], set_logic: 'intersection' };
    const crossed = await f.call('POST', '/v1/discovery/count', both);
    expect(crossed.status, JSON.stringify(crossed.body)).toBe(422);
    expect(crossed.body).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET' });
    const aud = await f.call('POST', '/v1/audiences', { name: 'list x any age', ...both });
    expect(aud.status, JSON.stringify(aud.body)).toBe(201);
    expect(aud.body).toMatchObject({ record_count: null, record_count_reason: 'below_privacy_floor' });
    expect((await f.call('GET', `/v1/segments/${c.segment_id}`)).body).toMatchObject({ record_count: 20 });
    await waitFor(() => receiver.received.some((r) => JSON.parse(r.rawBody).subject.id === c.segment_id));
    const ev = JSON.parse(receiver.received.find((r) => JSON.parse(r.rawBody).subject.id === c.segment_id)!.rawBody);
    expect(ev.type).toBe('segment.ready');
    expect(ev.data).toMatchObject({
      status: 'completed',
      audience_id: c.audience_id,
      match_count: 20,
      record_count: 20,
      mapping_warnings: [],
    });
    // A second PUT after every shard arrived is refused.
    expect((await f.put(c.upload_url, toCsv(all()))).status).toBe(409);
  });

  it('resolves a gzip CSV in 3 shards (row_id unique across shards)', async () => {
    const c = await f.create({ compression: 'gzip', shard_count: 3 });
    expect(c.upload_urls).toHaveLength(3);
    expect(c.upload_url).toBeUndefined();
    const rows = all();
    const parts = [rows.slice(0, 8), rows.slice(8, 16), rows.slice(16)];
    const cols = Object.keys(rows[0]!);
    for (let i = 2; i >= 0; i--) {
      const r = await f.put(c.upload_urls[i], gz(toCsv(parts[i]!, cols)), { 'content-type': 'application/gzip' });
      expect(r.status).toBe(200);
      expect(r.body.matching_status).toBe(i === 0 ? 'queued' : 'awaiting_upload');
    }
    await expectCompleted(c);
  });

  it('resolves jsonl raw and json gzip', async () => {
    const a = await f.create({ file_format: 'jsonl', create_audience: false });
    expect(a.audience_id).toBeUndefined();
    expect((await f.put(a.upload_url, toJsonl(all()), { 'content-type': 'application/x-ndjson' })).status).toBe(200);
    await expectCompleted(a);
    const b = await f.create({ file_format: 'json', compression: 'gzip', shard_count: 2 });
    expect((await f.put(b.upload_urls[0], gz(toJsonl(all().slice(0, 10))))).status).toBe(200);
    expect((await f.put(b.upload_urls[1], gz(toJsonl(all().slice(10))))).status).toBe(200);
    await expectCompleted(b);
  });

  it('resolves json raw and jsonl gzip, and a single gzip CSV shard', async () => {
    const a = await f.create({ file_format: 'json' });
    expect((await f.put(a.upload_url, toJsonl(all()), { 'content-type': 'application/json' })).status).toBe(200);
    await expectCompleted(a);
    const b = await f.create({ file_format: 'jsonl', compression: 'gzip' });
    expect((await f.put(b.upload_url, gz(toJsonl(all())))).status).toBe(200);
    await expectCompleted(b);
    const c = await f.create({ compression: 'gzip' });
    expect((await f.put(c.upload_url, gz(toCsv(all())))).status).toBe(200);
    await expectCompleted(c);
  });

  it('resolves avro with an emails array column', async () => {
    const c = await f.create({ file_format: 'avro' });
    expect((await f.put(c.upload_url, await toAvro(all()), { 'content-type': 'application/avro' })).status).toBe(200);
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed']);
    expect(done).toMatchObject({ matching_status: 'completed', input_record_count: 25, match_count: 20 });
    expect(done.column_mappings).toMatchObject({ emails: 'emails', row_id: 'row_id' });
  });

  it('POST /v1/segments with subtype matched creates the same pending segment', async () => {
    const res = await f.call('POST', '/v1/segments', { name: 'via segments', subtype: 'matched', file_format: 'jsonl', shard_count: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', subtype: 'matched', file_format: 'jsonl', shard_count: 2 });
    expect(res.body.upload_urls).toHaveLength(2);
    expect(res.body.audience_id).toMatch(/^aud_/);
  });
});
