/** Signed URL security, error codes, analysis, hitl, upload-failed, refresh, and a crash mid-resolution. */
import fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../webhooks/helpers.ts';
import { setupWithEvents, toCsv, type FileTest, type People } from './helpers.ts';

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
  f.t.services.fileMatch.hooks.beforeSwap = undefined;
  await fixture.close();
});
const all = () => [...p.good, ...p.nobody];

describe('signed upload URLs', () => {
  it('refuses expired, tampered and cross-object URLs with 403', async () => {
    const c = await f.create({ shard_count: 2 });
    const [u0, u1] = c.upload_urls as string[];
    const sig = new URL(u0!).searchParams.get('signature')!;
    const tampered = u0!.replace(/signature=[^&]+/, `signature=${sig.slice(0, -2)}xx`);
    expect((await f.put(tampered, 'a,b\n')).body.error).toBe('UPLOAD_URL_INVALID');
    // shard 0's signature on shard 1's path: not replayable onto another object
    const cross = u1!.replace(/signature=[^&]+/, `signature=${sig}`);
    const r = await f.put(cross, 'a,b\n');
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('UPLOAD_URL_INVALID');
    expect(
      (
        await f.put(
          u0!.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 3600}`),
          'x',
        )
      ).body.error,
    ).toBe('UPLOAD_URL_INVALID');
    f.clock.advance(31 * 60_000);
    const expired = await f.put(u0!, 'a,b\n');
    expect(expired.status).toBe(403);
    expect(expired.body.error).toBe('UPLOAD_URL_EXPIRED');
    f.clock.advance(-31 * 60_000);
  });

  it('create errors: gzip+avro, unknown campaign (nothing created), shard_count bounds', async () => {
    const before = (await f.call('GET', '/v1/segments?limit=100')).body.count;
    expect((await f.call('POST', '/v1/match/file', { file_format: 'avro', compression: 'gzip' })).body.error).toBe(
      'UNSUPPORTED_INPUT_COMPRESSION',
    );
    expect((await f.call('POST', '/v1/match/file', { campaign_id: 'cmp_nope' })).body.error).toBe('INVALID_CAMPAIGN_ID');
    expect((await f.call('POST', '/v1/match/file', { shard_count: 51 })).status).toBe(400);
    expect(
      (await f.call('POST', '/v1/segments', { name: 'x', subtype: 'matched', file_format: 'avro', compression: 'gzip' })).body.error,
    ).toBe('UNSUPPORTED_INPUT_COMPRESSION');
    expect((await f.call('GET', '/v1/segments?limit=100')).body.count).toBe(before);
  });

  it('Idempotency-Key replays the same segment and audience with re-signed URLs', async () => {
    const a = await f.create({ name: 'idem' }, { 'idempotency-key': 'fm-idem-1' });
    f.clock.advance(60_000);
    const b = await f.create({ name: 'idem' }, { 'idempotency-key': 'fm-idem-1' });
    f.clock.advance(-60_000);
    expect(b.segment_id).toBe(a.segment_id);
    expect(b.audience_id).toBe(a.audience_id);
    expect(b.upload_url).not.toBe(a.upload_url);
    expect(new Date(b.upload_expires_at).getTime()).toBe(new Date(a.upload_expires_at).getTime() + 60_000);
  });
});

describe('analysis and progress', () => {
  it('409 FILE_NOT_YET_UPLOADED, then maps columns and never maps hashes to raw email', async () => {
    const c = await f.create({ hitl: true });
    expect((await f.call('POST', `/v1/match/${c.segment_id}/analyze`)).body.error).toBe('FILE_NOT_YET_UPLOADED');
    const hex = 'a'.repeat(64);
    const rows = all().map((r) => ({ ...r, email_address: r.email, email: hex, mystery: hex, addresses: '[{"city":"X"}]' }));
    expect(
      (
        await f.put(
          c.upload_url,
          toCsv(rows, ['row_id', 'email', 'email_address', 'first_name', 'last_name', 'zip', 'mystery', 'addresses']),
        )
      ).status,
    ).toBe(200);
    expect((await f.call('GET', `/v1/match/file/${c.segment_id}`)).body.matching_status).toBe('awaiting_mappings');
    const res = await f.call('POST', `/v1/match/${c.segment_id}/analyze`);
    expect(res.status).toBe(200);
    const byCol = Object.fromEntries(res.body.analysis.columns.map((x: any) => [x.source_column, x]));
    expect(byCol.email.mapped_to).toBe('email_sha256');
    expect(byCol.email_address.mapped_to).toBe('email');
    expect(byCol.mystery.mapped_to).toBeNull();
    expect(res.body.analysis.unmapped_columns).toContain('mystery');
    expect(byCol.addresses.warning).toMatch(/address_1/);
    const st = (await f.call('GET', `/v1/match/file/${c.segment_id}`)).body;
    expect(st.mapping_warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ column: 'addresses', source: 'nested_addresses' })]),
    );
  });

  it('fails with segment.failed when no identity column is usable', async () => {
    const c = await f.create({ webhook_url: receiver.url });
    expect((await f.put(c.upload_url, 'color,size\nred,1\nblue,2\n')).status).toBe(200);
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed']);
    expect(done).toMatchObject({ matching_status: 'failed', status: 'failed' });
    expect(done.error_message).toMatch(/identity/);
    expect((await f.call('GET', `/v1/audiences/${c.audience_id}`)).body.status).toBe('failed');
    await waitFor(() => receiver.received.some((r) => JSON.parse(r.rawBody).subject.id === c.segment_id));
    const ev = JSON.parse(receiver.received.find((r) => JSON.parse(r.rawBody).subject.id === c.segment_id)!.rawBody);
    expect(ev).toMatchObject({
      type: 'segment.failed',
      data: { status: 'failed', error_code: 'NO_USABLE_IDENTITY_COLUMN', audience_id: c.audience_id },
    });
  });

  it('fails on duplicate row_id across shards and on a shard header mismatch', async () => {
    const d = await f.create({ shard_count: 2 });
    await f.put(d.upload_urls[0], toCsv(all().slice(0, 5)));
    await f.put(d.upload_urls[1], toCsv(all().slice(4, 8)));
    expect((await f.waitStatus(d.segment_id, ['completed', 'failed'])).error_message).toMatch(/row_id.*unique.*g4/);
    const h = await f.create({ shard_count: 2 });
    await f.put(h.upload_urls[0], toCsv(all().slice(0, 5)));
    await f.put(h.upload_urls[1], toCsv(all().slice(5, 10), ['row_id', 'email', 'last_name', 'first_name', 'zip']));
    expect((await f.waitStatus(h.segment_id, ['completed', 'failed'])).error_message).toMatch(/header/);
  });
});

describe('hitl, upload-failed, refresh, crash', () => {
  it('hitl: staged upload, (skip) honoured, STAGING_COPY_FAILED leaves it unchanged, then resolves', async () => {
    const c = await f.create({ hitl: true });
    await f.put(c.upload_url, toCsv(all()));
    const seg = (await f.call('GET', `/v1/segments/${c.segment_id}`)).body;
    expect(seg.status).toBe('pending');
    // Break the staged file: the confirm fails with 500 and nothing changes.
    const staged = f.t.services.fileMatch.objects.pathOf(`uploads/${f.org.orgId}/${c.segment_id}/v1/staging/shard-0`);
    fs.renameSync(staged, `${staged}.away`);
    const bad = await f.call('POST', `/v1/segments/${c.segment_id}/mappings`, { column_mappings: { email: '(skip)' } });
    expect(bad.status).toBe(500);
    expect(bad.body.error).toBe('STAGING_COPY_FAILED');
    expect((await f.call('GET', `/v1/match/file/${c.segment_id}`)).body.matching_status).toBe('awaiting_mappings');
    fs.renameSync(`${staged}.away`, staged);
    const ok = await f.call('POST', `/v1/audiences/${c.audience_id}/mappings`, { column_mappings: { email: '(skip)' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, mapping_confirmed: true, column_mappings: { email: '(skip)' } });
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed']);
    // Without email the rows match on name + ZIP only (fewer I matches) and email was never read.
    expect(done).toMatchObject({ matching_status: 'completed', mapping_confirmed: true, input_record_count: 25 });
    expect(done.column_mappings.email).toBe('(skip)');
  });

  it('hitl cancel aborts the staged upload and leaves the segment untouched', async () => {
    const c = await f.create({ hitl: true });
    await f.put(c.upload_url, toCsv(all()));
    const before = (await f.call('GET', `/v1/segments/${c.segment_id}`)).body;
    const res = await f.call('POST', `/v1/segments/${c.segment_id}/mappings/cancel`);
    expect(res.body).toMatchObject({ ok: true, cancelled: true });
    const after = (await f.call('GET', `/v1/segments/${c.segment_id}`)).body;
    expect(after).toMatchObject({ status: before.status, input_record_count: null, column_mappings: null });
    expect((await f.put(c.upload_url, 'x')).status).toBe(409);
    // The staged file is gone: analysis says so with a step that works (a refresh), and no server path.
    const analyzed = await f.call('POST', `/v1/match/${c.segment_id}/analyze`);
    expect(analyzed).toMatchObject({ status: 409, body: { error: 'FILE_NOT_YET_UPLOADED' } });
    expect(analyzed.body.next_step).toContain('/refresh');
    expect(JSON.stringify(analyzed.body)).not.toMatch(/\/(tmp|var|home|work|root)\//);
  });

  it('starts with an empty body, no body, or {} (spec 4.5: every field optional)', async () => {
    for (const req of [
      { payload: undefined, headers: {} },
      { payload: '', headers: { 'content-type': 'application/json' } },
      { payload: '{}', headers: { 'content-type': 'application/json' } },
    ]) {
      const res = await f.t.app.inject({
        method: 'POST',
        url: '/v1/match/file',
        headers: { authorization: `Bearer ${f.token}`, ...req.headers },
        ...(req.payload === undefined ? {} : { payload: req.payload }),
      });
      expect(res.statusCode, JSON.stringify(req)).toBe(201);
      expect(res.json()).toMatchObject({ subtype: 'matched', status: 'pending', file_format: 'csv' });
      expect(res.json().upload_url).toMatch(/\/v1\/uploads\//);
    }
  });

  it('unarchive restores the status a matched segment had: failed stays failed (with its message), pending stays pending', async () => {
    const failed = await f.create();
    await f.call('POST', `/v1/segments/${failed.segment_id}/upload-failed`, { reason: 'source export broke' });
    const patch = (id: string, status: string) => f.call('PATCH', `/v1/segments/${id}`, { status });
    expect((await patch(failed.segment_id, 'archived')).body.status).toBe('archived');
    const restored = (await patch(failed.segment_id, 'active')).body;
    expect(restored).toMatchObject({ status: 'failed', error_message: expect.stringContaining('source export broke'), record_count: null });
    expect((await f.call('GET', `/v1/match/file/${failed.segment_id}`)).body.matching_status).toBe('failed');
    const pending = await f.create();
    await patch(pending.segment_id, 'archived');
    expect((await patch(pending.segment_id, 'active')).body.status).toBe('pending');
  });

  it('refuses filter-only options on a matched segment: ephemeral on create, record_limit on PATCH (RECORD_LIMIT_UNSUPPORTED)', async () => {
    const before = (await f.call('GET', '/v1/segments?limit=100')).body.count;
    const eph = await f.call('POST', '/v1/segments', { name: 'm', subtype: 'matched', ephemeral: true });
    expect(eph).toMatchObject({ status: 400, body: { error: 'INVALID_REQUEST', fields: ['ephemeral'] } });
    expect((await f.call('GET', '/v1/segments?limit=100')).body.count).toBe(before);
    const c = await f.create();
    const capped = await f.call('PATCH', `/v1/segments/${c.segment_id}`, { record_limit: 10 });
    expect(capped).toMatchObject({ status: 400, body: { error: 'RECORD_LIMIT_UNSUPPORTED' } });
  });

  it('upload-failed: pending -> failed with the audience; repeat already_resolved; 400 for non-matched', async () => {
    const c = await f.create();
    const r1 = await f.call('POST', `/v1/segments/${c.segment_id}/upload-failed`, { reason: 'client disk full' });
    expect(r1.body).toEqual({ ok: true, already_resolved: false });
    expect((await f.call('GET', `/v1/segments/${c.segment_id}`)).body).toMatchObject({
      status: 'failed',
      error_message: expect.stringContaining('client disk full'),
    });
    expect((await f.call('GET', `/v1/audiences/${c.audience_id}`)).body.status).toBe('failed');
    expect((await f.call('POST', `/v1/segments/${c.segment_id}/upload-failed`, {})).body).toEqual({ ok: true, already_resolved: true });
    const filter = await f.call('POST', '/v1/segments', { name: 'flt', filters: [{ field: 'state', op: '=', value: 'CA' }] });
    expect(filter.status).toBe(201);
    expect((await f.call('POST', `/v1/segments/${filter.body.segment_id}/upload-failed`, {})).body.error).toBe('NOT_A_MATCHED_UPLOAD');
  });

  it('refresh: pending again with 24-hour URLs, counts reset, compression not inherited; audience refresh; SHARED_SOURCE_DATA', async () => {
    const c = await f.create({ compression: 'gzip' });
    const { gzipSync } = await import('node:zlib');
    await f.put(c.upload_url, gzipSync(toCsv(all())));
    await f.waitStatus(c.segment_id, ['completed']);
    const r = await f.call('POST', `/v1/segments/${c.segment_id}/refresh`, { shard_count: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'pending',
      refreshed: true,
      input_record_count: null,
      match_count: null,
      column_mappings: null,
      mapping_confirmed: false,
      shard_count: 2,
    });
    expect(r.body.upload_urls).toHaveLength(2);
    expect(new Date(r.body.upload_expires_at).getTime() - f.clock.now().getTime()).toBe(24 * 3600_000);
    // The old URL is for the previous upload version.
    expect((await f.put(c.upload_url, 'x')).body.error).toBe('UPLOAD_SUPERSEDED');
    const st = (await f.call('GET', `/v1/match/file/${c.segment_id}`)).body;
    expect(st).toMatchObject({ compression: 'none', matching_status: 'awaiting_upload' });
    await f.put(r.body.upload_urls[0], toCsv(all().slice(0, 10)));
    await f.put(r.body.upload_urls[1], toCsv(all().slice(10)));
    await f.waitStatus(c.segment_id, ['completed']);
    const ar = await f.call('POST', `/v1/audiences/${c.audience_id}/refresh`, { segment_id: c.segment_id });
    expect(ar.status).toBe(200);
    expect(ar.body).toMatchObject({ status: 'pending', subtype: 'matched', compression: 'none' });
    expect(ar.body.upload_url).toContain('/v1/uploads/');
    expect((await f.call('GET', `/v1/audiences/${c.audience_id}`)).body.status).toBe('pending');
    expect((await f.call('POST', '/v1/match/file', { file_format: 'avro' })).status).toBe(201);
    const avroSeg = await f.create({ file_format: 'avro' });
    expect((await f.call('POST', `/v1/segments/${avroSeg.segment_id}/refresh`, { compression: 'gzip' })).body.error).toBe(
      'UNSUPPORTED_INPUT_COMPRESSION',
    );
    const dup = await f.call('POST', `/v1/segments/${c.segment_id}/duplicate`, {});
    expect((await f.call('POST', `/v1/segments/${dup.body.segment_id}/refresh`, {})).body.error).toBe('SHARED_SOURCE_DATA');
  });

  it('gives one result per input row in file order, decided as POST /v1/match decides; a bad row mid-file fails cleanly', async () => {
    const rowsOf = async (segmentId: string) => {
      const base = f.t.services.fileMatch.objects.pathOf(`results/${f.org.orgId}/${segmentId}/v1`);
      const [run] = fs.readdirSync(base);
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      const rows = (await c.runAndReadAll(`SELECT * FROM read_parquet('${base}/${run}/rows.parquet')`)).getRowObjectsJS();
      c.closeSync();
      db.closeSync();
      return rows;
    };
    // Unmatched rows first and last: the file path must still give them their place.
    const input = [p.nobody[0]!, ...p.good, ...p.nobody.slice(1)];
    const whole = await f.create();
    await f.put(whole.upload_url, toCsv(input));
    expect(await f.waitStatus(whole.segment_id, ['completed', 'failed'])).toMatchObject({
      matching_status: 'completed',
      input_record_count: 25,
      match_count: 20,
    });
    const rows = await rowsOf(whole.segment_id);
    expect(rows.map((r) => r.row_id)).toEqual(input.map((r) => r.row_id));
    // The micro-batch path (point lookups, scoring in JS) and the file path (one staged statement) agree.
    const micro = await f.call('POST', '/v1/match', { records: input, spatial_mode: 'residential' });
    expect(micro.status).toBe(200);
    const pick = (r: Record<string, unknown>) => [r.row_id, r.match_level ?? null, r.match_type ?? null, r.match_confidence ?? null];
    expect(rows.map(pick)).toEqual(micro.body.records.map(pick));
    expect(rows.filter((r) => r.person_key !== null)).toHaveLength(20);

    const broken = all().map((r, i) => (i === 17 ? { ...r, row_id: ' ' } : r));
    const bad = await f.create();
    await f.put(bad.upload_url, toCsv(broken));
    const failed = await f.waitStatus(bad.segment_id, ['completed', 'failed']);
    expect(failed).toMatchObject({ matching_status: 'failed' });
    expect(failed.error_message).toMatch(/row 18/i);
  }, 60_000);

  it('a tier-01 iag_person_id of this organization matches its person directly (person_id); a foreign one does not', async () => {
    const micro = await f.call('POST', '/v1/match', { records: p.good.slice(0, 4), match_level: ['I'] });
    const ids = micro.body.records.map((r: { iag_person_id: string }) => r.iag_person_id);
    expect(ids.every((id: string | null) => typeof id === 'string')).toBe(true);
    // Only the id can match these rows: names are strangers' and there is no email.
    const rows = [
      ...ids.map((id: string, i: number) => ({ row_id: `d${i}`, iag_person_id: id, first_name: 'Zyxw', last_name: 'Qqqvnone' })),
      { row_id: 'foreign', iag_person_id: `${ids[0].slice(0, -4)}zzzz`, first_name: 'Zyxw', last_name: 'Qqqvnone' },
    ];
    const c = await f.create();
    await f.put(c.upload_url, toCsv(rows, ['row_id', 'iag_person_id', 'first_name', 'last_name']));
    expect(await f.waitStatus(c.segment_id, ['completed', 'failed'])).toMatchObject({
      matching_status: 'completed',
      input_record_count: 5,
      match_count: 4,
    });
    const base = f.t.services.fileMatch.objects.pathOf(`results/${f.org.orgId}/${c.segment_id}/v1`);
    const [run] = fs.readdirSync(base);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const out = (
      await conn.runAndReadAll(`SELECT row_id, match_level, match_type, match_confidence FROM read_parquet('${base}/${run}/rows.parquet')`)
    ).getRowObjectsJS();
    conn.closeSync();
    db.closeSync();
    expect(out).toEqual([
      ...ids.map((_: string, i: number) => ({ row_id: `d${i}`, match_level: 'I', match_type: 'person_id', match_confidence: 1 })),
      { row_id: 'foreign', match_level: null, match_type: null, match_confidence: null },
    ]);
  }, 60_000);

  it('a worker crash mid-resolution is retried and completes with correct counts', async () => {
    let crashes = 0;
    f.t.services.fileMatch.hooks.beforeSwap = () => {
      if (crashes++ === 0) throw new Error('simulated worker crash');
    };
    const c = await f.create();
    await f.put(c.upload_url, toCsv(all()));
    const done = await f.waitStatus(c.segment_id, ['completed', 'failed'], 60_000);
    f.t.services.fileMatch.hooks.beforeSwap = undefined;
    expect(crashes).toBe(2);
    expect(done).toMatchObject({ matching_status: 'completed', input_record_count: 25, match_count: 20 });
    // Only the successful run's folder remains.
    const runs = fs.readdirSync(f.t.services.fileMatch.objects.pathOf(`results/${f.org.orgId}/${c.segment_id}/v1`));
    expect(runs).toHaveLength(1);
  }, 90_000);
});
