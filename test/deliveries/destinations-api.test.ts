/**
 * Deliveries to SFTP (Debian's OpenSSH on loopback) and S3 (s3rver on loopback) over HTTP: destinations
 * configured with the account scope (credentials never returned), connection tests, files landing
 * byte-exact, licensed identities delivered again free of charge, and a failing destination: failed with a reason, nothing charged,
 * delivery.failed, and the same request accepted again afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, type S3Server } from '../helpers/s3-server.ts';
import { startSftpServer, type SftpServer } from '../helpers/sftp-server.ts';
import { cond } from '../segments/setup.ts';
import { waitFor } from '../webhooks/helpers.ts';
import { enterpriseCents, setupDeliveries, type DeliveryTest } from './api-setup.ts';

let d: DeliveryTest;
let sftp: SftpServer;
let s3: S3Server;
let audience: string;
let count: number;
let reference: Buffer;

beforeAll(async () => {
  [d, sftp, s3] = await Promise.all([setupDeliveries(), startSftpServer(), startS3Server()]);
  audience = await d.audience([cond('state', '=', 'NY')]);
  count = (await d.g.keys(`state = 'NY'`)).size;
  // The same content as a download: the reference bytes every destination must hold.
  const dl = await d.waitDone(audience, (await d.deliver(audience, { field_list: ['age', 'state'] })).body.delivery_id);
  reference = (await d.download(dl.download_urls[0])).raw;
}, 240_000);
afterAll(async () => {
  await d?.close();
  await sftp?.stop();
  await s3?.stop();
});

const sftpBody = (extra: Record<string, unknown> = {}) => ({
  kind: 'sftp',
  name: 'Partner drop',
  config: { host: sftp.host, port: sftp.port, username: sftp.username, remote_dir: sftp.root },
  secrets: { password: sftp.password },
  ...extra,
});

describe('destinations and deliveries to them', () => {
  it('configures an SFTP destination (secrets sealed, never returned), tests it, and delivers byte-exact files there', async () => {
    const created = await d.call('POST', '/v1/delivery-destinations', sftpBody());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'sftp',
      name: 'Partner drop',
      config: { host: sftp.host, port: sftp.port, username: sftp.username },
    });
    expect(JSON.stringify(created.body)).not.toContain(sftp.password);
    const { testStores } = await import('../helpers/stores.ts');
    const stored = await (
      await testStores()
    ).database.db
      .selectFrom('delivery_destinations')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.secrets_sealed).toMatch(/^dsk1\./);
    expect(stored.secrets_sealed).not.toContain(sftp.password);
    expect((await d.call('POST', `/v1/delivery-destinations/${created.body.id}/test`)).body).toMatchObject({ ok: true });
    expect((await d.call('GET', '/v1/delivery-destinations')).body.destinations.map((x: any) => x.id)).toContain(created.body.id);

    const before = await d.ledger();
    const body = { field_list: ['age', 'state'], destination: 'sftp', destination_id: created.body.id };
    // The members were delivered as a download in beforeAll: their licenses are active, so the quote
    // shows them as already licensed and the delivery to SFTP charges nothing (spec 8, license reuse).
    const quote = (await d.call('POST', `/v1/audiences/${audience}/deliveries/quote`, body)).body;
    expect(quote.license_pricing).toMatchObject({ status: 'live', already_licensed_count: expect.any(Number) });
    expect(quote.license_pricing.already_licensed_count).toBeGreaterThan(0);
    const shown = (await d.call('GET', `/v1/audiences/${audience}`)).body.record_count as number;
    expect(quote.max_cost_estimate).toMatchObject({ billing_count: shown, total_cost: enterpriseCents(3, shown) / 100 });
    const res = await d.deliver(audience, body);
    expect(res.status).toBe(202);
    // The estimate is the quote's (the privacy layer's counts); the charge is exact.
    expect(res.body.estimated_cost).toBe(quote.cost_estimate.total_cost);
    const done = await d.waitDone(audience, res.body.delivery_id);
    expect(done).toMatchObject({
      status: 'completed',
      destination: 'sftp',
      destination_id: created.body.id,
      download_urls: null,
      output_record_count: count,
      cost: 0,
    });
    const landed = fs.readFileSync(path.join(sftp.root, `${res.body.delivery_id}_part-00000.csv`));
    expect(landed.equals(reference)).toBe(true);
    expect((await d.ledgerAfter(before)).map((r) => [r.kind, r.status, r.quantity, r.amount_cents])).toEqual([
      ['audience_delivery.filter', 'settled', 0, 0],
    ]);
  });

  it('delivers to S3 (s3rver): the object equals the download bytes', async () => {
    const created = await d.call('POST', '/v1/delivery-destinations', {
      kind: 's3',
      name: 'Bucket',
      config: { endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, force_path_style: true, prefix: 'ads/' },
      secrets: { access_key_id: S3_ACCESS_KEY_ID, secret_access_key: S3_SECRET_ACCESS_KEY },
    });
    expect(created.status).toBe(201);
    expect((await d.call('POST', `/v1/delivery-destinations/${created.body.id}/test`)).status).toBe(200);
    const res = await d.deliver(audience, { field_list: ['age', 'state'], destination: 's3', destination_id: created.body.id });
    const done = await d.waitDone(audience, res.body.delivery_id);
    expect(done).toMatchObject({ status: 'completed', destination: 's3', cost: 0 });
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
    });
    const obj = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `ads/${res.body.delivery_id}/part-00000.csv` }));
    expect(Buffer.from(await obj.Body!.transformToByteArray()).equals(reference)).toBe(true);
    client.destroy();
  });

  it('a failing destination fails the delivery with a reason, charges nothing, emits delivery.failed, and the request is accepted again', async () => {
    await d.call('PUT', '/v1/settings/webhook', { url: d.receiver.url });
    const bad = (await d.call('POST', '/v1/delivery-destinations', sftpBody({ secrets: { password: 'wrong-password' } }))).body;
    const tested = await d.call('POST', `/v1/delivery-destinations/${bad.id}/test`);
    expect(tested.status).toBe(502);
    expect(tested.body.error).toBe('DESTINATION_AUTH_FAILED');
    const before = await d.ledger();
    const res = await d.deliver(audience, { field_list: ['age'], destination: 'sftp', destination_id: bad.id });
    expect(res.status).toBe(202);
    const done = await d.waitDone(audience, res.body.delivery_id);
    expect(done).toMatchObject({ status: 'failed', cost: 0, download_urls: null, completed_at: null });
    expect(done.failure_reason).toMatch(/auth|denied|password|credential/i);
    const rows = await d.ledgerAfter(before);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.status === 'released' && r.amount_cents === 0)).toBe(true);
    await waitFor(() => d.receiver.received.some((x) => JSON.parse(x.rawBody).data?.delivery_id === res.body.delivery_id));
    const event = d.receiver.received.map((x) => JSON.parse(x.rawBody)).find((e) => e.data?.delivery_id === res.body.delivery_id);
    expect(event).toMatchObject({
      type: 'delivery.failed',
      data: { status: 'failed', error_code: 'DESTINATION_AUTH_FAILED', cost: 0, destination: 'sftp' },
    });
    // A failed delivery is not "already delivered": the same request is a new delivery.
    const again = await d.deliver(audience, { field_list: ['age'], destination: 'sftp', destination_id: bad.id });
    expect(again.status).toBe(202);
    expect(again.body.delivery_id).not.toBe(res.body.delivery_id);
    await d.waitDone(audience, again.body.delivery_id);
  });

  it('refuses bad destination configurations listing every problem, and deletes destinations', async () => {
    const res = await d.call('POST', '/v1/delivery-destinations', { kind: 'sftp', name: 'x', config: { port: 0 }, secrets: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_DESTINATION_CONFIG');
    expect(res.body.issues.map((i: any) => i.message)).toEqual(
      expect.arrayContaining(['config.host is required', 'config.username is required']),
    );
    const made = (await d.call('POST', '/v1/delivery-destinations', sftpBody())).body;
    expect((await d.call('DELETE', `/v1/delivery-destinations/${made.id}`)).status).toBe(200);
    expect((await d.call('GET', `/v1/delivery-destinations/${made.id}`)).body.error).toBe('DESTINATION_NOT_FOUND');
    const gone = await d.deliver(audience, { destination: 'sftp', destination_id: made.id });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('DESTINATION_NOT_FOUND');
  });
});
