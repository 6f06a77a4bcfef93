/**
 * Deliveries over HTTP to a download: quote, create (202 processing -> completed), signed download URLs
 * (tampered, expired, regenerated), rows read back and counted, the charge settled once, free
 * re-delivery, concurrent identical requests, delivery.completed at a loopback receiver.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStores } from '../helpers/stores.ts';
import { cond } from '../segments/setup.ts';
import { waitFor } from '../webhooks/helpers.ts';
import { enterpriseCents, setupDeliveries, type DeliveryTest } from './api-setup.ts';
import { STANDARD_ENRICHMENT } from './helpers.ts';

let d: DeliveryTest;
let caAudience: string;
let caCount: number;

beforeAll(async () => {
  d = await setupDeliveries();
  caAudience = await d.audience([cond('state', '=', 'CA')]);
  caCount = (await d.g.keys(`state = 'CA'`)).size;
}, 120_000);
afterAll(async () => {
  await d?.close();
});

describe('audience deliveries to a download', () => {
  it('quotes per record (enterprise terms: 3 cents a member less 15%), records the quote on the audience, and changes nothing else', async () => {
    const res = await d.call('POST', `/v1/audiences/${caAudience}/deliveries/quote`, {});
    expect(res.status).toBe(200);
    // Before purchase the count is graph-derived: the quote prices the audience's record_count as the
    // privacy layer shows it (its own question, so the two agree), never the exact member count.
    const shown = (await d.call('GET', `/v1/audiences/${caAudience}`)).body.record_count as number;
    expect(shown).not.toBe(caCount);
    expect(Math.abs(shown - caCount)).toBeLessThanOrEqual(30);
    const cents = enterpriseCents(3, shown);
    expect(res.body.cost_estimate).toEqual({
      base_cost: cents / 100,
      match_cost: 0,
      field_cost: 0,
      destination_cost: 0,
      total_cost: cents / 100,
      unit_price: 0.0255,
      billing_count: shown,
    });
    expect(res.body.max_cost_estimate).toEqual(res.body.cost_estimate);
    expect(res.body.license_pricing).toEqual({ status: 'live', evaluated_at: d.clock.now().toISOString(), already_licensed_count: 0 });
    expect(res.body.quote_id).toMatch(/^dq_[A-Za-z0-9]{20}$/);
    const { database } = await testStores();
    const a = await database.db
      .selectFrom('audiences')
      .select(['last_quote_id', 'last_quote_cost_cents'])
      .where('id', '=', caAudience)
      .executeTakeFirstOrThrow();
    expect(a).toEqual({ last_quote_id: res.body.quote_id, last_quote_cost_cents: cents });
    // Enterprise terms have no identity-field surcharge (paygo's is in deliveries/licenses).
    const pii = await d.call('POST', `/v1/audiences/${caAudience}/deliveries/quote`, { field_list: ['first_name', 'last_name', 'age'] });
    expect(pii.body.cost_estimate).toMatchObject({ field_cost: 0, unit_price: 0.0255, total_cost: cents / 100, billing_count: shown });
    expect(await d.ledger()).toEqual([]);
  });

  it('creates a delivery (202 processing, estimate reserved), completes it, charges once, and the signed URL serves the rows', async () => {
    const quote = (await d.call('POST', `/v1/audiences/${caAudience}/deliveries/quote`, {})).body;
    const res = await d.deliver(caAudience, { quote_id: quote.quote_id, webhook_url: d.receiver.url });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      audience_id: caAudience,
      audience_version: 1,
      destination: 'download',
      status: 'processing',
      template_id: 'standard_enrichment',
      field_list: null,
      output_format: 'csv',
      output_compression: 'none',
      estimated_cost: quote.cost_estimate.total_cost,
      cost: 0,
      already_delivered: false,
      download_urls: null,
      output_bytes: null,
      completed_at: null,
      failure_reason: null,
    });
    expect((await d.ledger()).map((r) => [r.kind, r.status, r.quantity])).toEqual([['audience_delivery.filter', 'reserved', caCount]]);

    const done = await d.waitDone(caAudience, res.body.delivery_id);
    // Every exported member is charged, up to the estimate shown (its ceiling: it priced the noised count).
    const charged = Math.min(enterpriseCents(3, caCount), Math.round(quote.cost_estimate.total_cost * 100));
    expect(done).toMatchObject({ status: 'completed', cost: charged / 100, output_record_count: caCount });
    expect(done.download_urls).toHaveLength(1);
    expect(done.download_urls[0]).toContain(`/v1/downloads/${d.org.orgId}/${res.body.delivery_id}/part-00000.csv?expires=`);
    expect(await d.ledger()).toMatchObject([
      { kind: 'audience_delivery.filter', status: 'settled', quantity: caCount, amount_cents: charged },
    ]);

    const file = await d.download(done.download_urls[0]);
    expect(file.status).toBe(200);
    expect(done.output_bytes).toBe(file.raw.length);
    const rows = parse(file.raw, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(caCount);
    expect(Object.keys(rows[0]!)).toEqual(['iag_person_id', ...STANDARD_ENRICHMENT]);
    expect(new Set(rows.map((r) => r.iag_person_id)).size).toBe(caCount);
    expect(rows.every((r) => /_01_/.test(r.iag_person_id!) && r.state === 'CA')).toBe(true);

    // delivery.completed at the request's webhook_url.
    await waitFor(() => d.receiver.received.some((x) => JSON.parse(x.rawBody).data?.delivery_id === res.body.delivery_id));
    const event = d.receiver.received.map((x) => JSON.parse(x.rawBody)).find((e) => e.data?.delivery_id === res.body.delivery_id);
    expect(event).toMatchObject({
      type: 'delivery.completed',
      subject: { kind: 'delivery', id: res.body.delivery_id },
      data: {
        status: 'completed',
        audience_id: caAudience,
        destination: 'download',
        output_record_count: caCount,
        output_bytes: file.raw.length,
        part_count: 1,
        cost: charged / 100,
      },
    });

    // Tampered URLs are refused; after 24 hours the URL expires; GET signs fresh ones.
    const tampered = done.download_urls[0].replace('part-00000.csv', 'part-00001.csv');
    expect((await d.download(tampered)).body).toMatchObject({ error: 'DOWNLOAD_URL_INVALID', request_id: expect.any(String) });
    expect((await d.download(`${done.download_urls[0]}x`)).status).toBe(403);
    d.clock.advance(24 * 3600_000 + 1000);
    const expired = await d.download(done.download_urls[0]);
    expect(expired.status).toBe(403);
    expect(expired.body.error).toBe('DOWNLOAD_URL_EXPIRED');
    const fresh = (await d.call('GET', `/v1/audiences/${caAudience}/deliveries/${res.body.delivery_id}`)).body;
    expect(fresh.download_urls[0]).not.toBe(done.download_urls[0]);
    expect((await d.download(fresh.download_urls[0])).raw.equals(file.raw)).toBe(true);

    // An identical delivery (same format) is the existing one, free; nothing is reserved or charged.
    const again = await d.deliver(caAudience, { output_format: 'csv' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ delivery_id: res.body.delivery_id, already_delivered: true, cost: 0, status: 'completed' });
    expect(again.body.message).toMatch(/no charge/);
    expect(await d.ledger()).toHaveLength(1);

    const list = await d.call('GET', `/v1/audiences/${caAudience}/deliveries`);
    expect(list.body.deliveries.map((x: any) => x.delivery_id)).toEqual([res.body.delivery_id]);
  });

  it('exports every format: jsonl gzip and avro rows read back equal the csv rows', async () => {
    const { gunzipSync } = await import('node:zlib');
    const fields = ['age', 'state', 'interests'];
    const csv = await d.waitDone(caAudience, (await d.deliver(caAudience, { field_list: fields })).body.delivery_id);
    const csvRows = parse((await d.download(csv.download_urls[0])).raw, { columns: true }) as Record<string, string>[];
    // Same content, so the other formats come from a second audience of the same members.
    const twin = await d.audience([cond('state', '=', 'CA')]);
    const jl = await d.waitDone(
      twin,
      (await d.deliver(twin, { field_list: fields, output_format: 'jsonl', output_compression: 'gzip' })).body.delivery_id,
    );
    expect(jl.download_urls[0]).toMatch(/part-00000\.jsonl\.gz\?/);
    const jsonRows = gunzipSync((await d.download(jl.download_urls[0])).raw)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(jsonRows).toHaveLength(csvRows.length);
    expect(jsonRows.map((r) => String(r.age ?? ''))).toEqual(csvRows.map((r) => r.age));
    expect(jsonRows.map((r) => (r.interests as string[]).join('|'))).toEqual(csvRows.map((r) => r.interests));
    const twin2 = await d.audience([cond('state', '=', 'CA')]);
    const av = await d.waitDone(
      twin2,
      (await d.deliver(twin2, { field_list: fields, output_format: 'avro', output_compression: 'gzip' })).body.delivery_id,
    );
    expect(av).toMatchObject({ output_compression: 'none', output_record_count: csvRows.length });
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-avro-')), 'p.avro');
    fs.writeFileSync(tmp, (await d.download(av.download_urls[0])).raw);
    const { readAvro } = await import('./helpers.ts');
    const decoded = await readAvro(tmp);
    expect(decoded.codec).toBe('deflate');
    expect(decoded.records.map((r) => (r.interests as string[]).join('|'))).toEqual(csvRows.map((r) => r.interests));
  });

  it('two identical requests racing settle as one delivery, one charge and one already_delivered', async () => {
    const aud = await d.audience([cond('state', '=', 'TX')]);
    const n = (await d.g.keys(`state = 'TX'`)).size;
    const before = await d.ledger();
    const [a, b] = await Promise.all([d.deliver(aud, {}), d.deliver(aud, {})]);
    expect([a.status, b.status].sort()).toEqual([200, 202]);
    expect(a.body.delivery_id).toBe(b.body.delivery_id);
    const created = a.status === 202 ? a.body : b.body;
    await d.waitDone(aud, created.delivery_id);
    const rows = await d.ledgerAfter(before);
    const settled = rows.filter((r) => r.status === 'settled');
    expect(settled).toMatchObject([{ kind: 'audience_delivery.filter', quantity: n, amount_cents: enterpriseCents(3, n) }]);
    expect(rows.filter((r) => r.status !== 'settled').every((r) => r.status === 'released' && r.amount_cents === 0)).toBe(true);
    expect((await d.call('GET', `/v1/audiences/${aud}/deliveries`)).body.deliveries).toHaveLength(1);
  });

  it('a delivery exports the snapshot it pinned at acceptance, even when a member segment is edited before the export runs', async () => {
    const seg = await d.segment({ filters: [cond('state', '=', 'CA')], create_audience: true });
    const aud = seg.audience_id as string;
    await d.pauseWorker();
    let res;
    try {
      res = await d.deliver(aud, { field_list: ['state'] });
      expect(res.status).toBe(202);
      // The member segment's filters change (a new segment version; the audience version stays 1).
      const patched = await d.call('PATCH', `/v1/segments/${seg.segment_id}`, { filters: [cond('state', '=', 'TX')] });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.current_version).toBe(2);
    } finally {
      await d.resumeWorker();
    }
    const done = await d.waitDone(aud, res.body.delivery_id);
    expect(done).toMatchObject({ status: 'completed', audience_version: 1, output_record_count: caCount });
    const rows = parse((await d.download(done.download_urls[0])).raw, { columns: true }) as Record<string, string>[];
    expect(rows.every((r) => r.state === 'CA')).toBe(true);
    // The same request now names other content (the segment's version 2): a new delivery of the TX members.
    const again = await d.deliver(aud, { field_list: ['state'] });
    expect(again.status).toBe(202);
    const next = await d.waitDone(aud, again.body.delivery_id);
    expect(next.output_record_count).toBe((await d.g.keys(`state = 'TX'`)).size);
    const txRows = parse((await d.download(next.download_urls[0])).raw, { columns: true }) as Record<string, string>[];
    expect(txRows.every((r) => r.state === 'TX')).toBe(true);
  });
});
