/**
 * What a delivery charges and what its URLs serve, over HTTP on a fresh organization (issue #31):
 * the charge never exceeds the estimate shown (which prices the privacy-noised count), another
 * output format is a new export in that format (free through license reuse), and a download URL
 * stops serving rows once a member segment of the delivery is deleted.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cond } from '../segments/setup.ts';
import { setupDeliveries, type DeliveryTest } from './api-setup.ts';

let d: DeliveryTest;

beforeAll(async () => {
  d = await setupDeliveries();
}, 120_000);
afterAll(async () => {
  await d?.close();
});

const STATES = ['CA', 'TX', 'NY', 'FL', 'PA', 'OH', 'IL', 'GA', 'NC', 'MI', 'NJ', 'VA', 'WA', 'AZ', 'MA'];

describe('delivery charges and downloads', () => {
  it('the final cost never exceeds estimated_cost, also when the noised count shown is below the exact one', async () => {
    // Disjoint audiences (one state each) on a fresh organization: no identity is licensed yet, so each
    // charge prices every exported member, while the estimate prices the count the privacy layer shows.
    const under: { aud: string; shown: number; exact: number }[] = [];
    const over: { aud: string; shown: number; exact: number }[] = [];
    for (const state of STATES) {
      if (under.length >= 3 && over.length >= 1) break;
      const exact = (await d.g.keys(`state = '${state}'`)).size;
      if (exact === 0) continue;
      const aud = await d.audience([cond('state', '=', state)]);
      const shown = (await d.call('GET', `/v1/audiences/${aud}`)).body.record_count as number;
      if (shown < exact && under.length < 3) under.push({ aud, shown, exact });
      else if (shown > exact && over.length < 1) over.push({ aud, shown, exact });
    }
    // The case of the audit: the estimate prices fewer records than are exported.
    expect(under.length).toBeGreaterThan(0);
    for (const c of [...under, ...over]) {
      const res = await d.deliver(c.aud, { field_list: ['state'] });
      expect(res.status).toBe(202);
      const done = await d.waitDone(c.aud, res.body.delivery_id);
      expect(done.status).toBe('completed');
      expect(done.output_record_count).toBe(c.exact);
      expect(done.estimated_cost).toBe(res.body.estimated_cost);
      expect(done.cost, JSON.stringify(c)).toBeLessThanOrEqual(done.estimated_cost);
      expect(done.cost).toBeGreaterThan(0);
    }
    // Every settled delivery charge in the ledger holds the same ceiling.
    const settled = (await d.ledger()).filter((r) => r.kind.startsWith('audience_delivery.') && r.status === 'settled');
    const estimates = await Promise.all(
      [...under, ...over].map(async (c) => (await d.call('GET', `/v1/audiences/${c.aud}/deliveries`)).body.deliveries[0]),
    );
    expect(settled.reduce((s, r) => s + r.amount_cents, 0)).toBeLessThanOrEqual(
      Math.round(estimates.reduce((s, x) => s + x.estimated_cost * 100, 0)),
    );
  }, 180_000);

  it('the same audience and fields in another output_format is a new delivery in that format, free; the same format again is already_delivered', async () => {
    const aud = await d.audience([cond('state', '=', 'CO')]);
    const exact = (await d.g.keys(`state = 'CO'`)).size;
    const fields = ['state', 'age'];
    const first = await d.waitDone(aud, (await d.deliver(aud, { field_list: fields })).body.delivery_id);
    expect(first).toMatchObject({ status: 'completed', output_format: 'csv' });
    const csvRows = parse((await d.download(first.download_urls[0])).raw, { columns: true }) as Record<string, string>[];
    const before = await d.ledger();

    const res = await d.deliver(aud, { field_list: fields, output_format: 'jsonl' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ output_format: 'jsonl', output_compression: 'none', already_delivered: false, status: 'processing' });
    expect(res.body.delivery_id).not.toBe(first.delivery_id);
    const second = await d.waitDone(aud, res.body.delivery_id);
    // Every identity is licensed by the first delivery: the export in the new format costs nothing.
    expect(second).toMatchObject({ status: 'completed', output_format: 'jsonl', cost: 0, output_record_count: exact });
    expect(second.download_urls[0]).toMatch(/part-00000\.jsonl\?/);
    const file = await d.download(second.download_urls[0]);
    expect(file.status).toBe(200);
    const lines = file.raw.toString('utf8').trim().split('\n');
    const jsonRows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(jsonRows).toHaveLength(csvRows.length);
    expect(jsonRows.map((r) => r.iag_person_id).sort()).toEqual(csvRows.map((r) => r.iag_person_id).sort());
    expect(jsonRows.every((r) => r.state === 'CO')).toBe(true);
    expect((await d.ledgerAfter(before)).reduce((s, r) => s + r.amount_cents, 0)).toBe(0);

    // The same request again (same format) is the jsonl delivery, already delivered and free.
    const again = await d.deliver(aud, { field_list: fields, output_format: 'jsonl' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ delivery_id: second.delivery_id, already_delivered: true, cost: 0, output_format: 'jsonl' });
    const csvAgain = await d.deliver(aud, { field_list: fields, output_format: 'csv' });
    expect(csvAgain.body).toMatchObject({ delivery_id: first.delivery_id, already_delivered: true, output_format: 'csv' });
  }, 120_000);

  it('a download URL stops serving rows once a member segment of the delivery is deleted (410 DOWNLOAD_GONE)', async () => {
    const seg = await d.segment({ filters: [cond('state', '=', 'OR')], create_audience: true });
    const aud = seg.audience_id as string;
    const done = await d.waitDone(aud, (await d.deliver(aud, { field_list: ['state'] })).body.delivery_id);
    const url = done.download_urls[0] as string;
    expect((await d.download(url)).status).toBe(200);

    const del = await d.call('DELETE', `/v1/segments/${seg.segment_id}?confirm_impact=true`);
    expect(del.status).toBeLessThan(300);
    const gone = await d.download(url);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: 'DOWNLOAD_GONE', request_id: expect.any(String) });
    expect(gone.raw.toString('utf8')).not.toContain('iag_person_id');
    // URLs signed afresh after the deletion serve nothing either.
    const fresh = (await d.call('GET', `/v1/audiences/${aud}/deliveries/${done.delivery_id}`)).body;
    for (const u of fresh.download_urls ?? []) expect((await d.download(u)).status).toBe(410);
  }, 120_000);

  it('a delivery still processing when its segment is deleted fails (SEGMENT_DELETED) and charges nothing', async () => {
    const seg = await d.segment({ filters: [cond('state', '=', 'NV')], create_audience: true });
    const aud = seg.audience_id as string;
    const before = await d.ledger();
    await d.pauseWorker();
    let res;
    try {
      res = await d.deliver(aud, { field_list: ['state'] });
      expect(res.status).toBe(202);
      expect((await d.call('DELETE', `/v1/segments/${seg.segment_id}?confirm_impact=true`)).status).toBeLessThan(300);
    } finally {
      await d.resumeWorker();
    }
    const done = await d.waitDone(aud, res.body.delivery_id);
    expect(done).toMatchObject({ status: 'failed', cost: 0, download_urls: null });
    expect(done.failure_reason).toMatch(/deleted/);
    expect((await d.ledgerAfter(before)).every((r) => r.status === 'released' && r.amount_cents === 0)).toBe(true);
  }, 120_000);
});
