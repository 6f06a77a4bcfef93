import fs from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DestinationAuthError,
  DestinationBlockedError,
  DestinationConfigError,
  DestinationWriteError,
  MULTIPART_PART_BYTES,
  s3Destination,
} from '../../src/destinations/index.ts';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type S3Server } from '../helpers/s3-server.ts';
import { connectionCounter, lookedUp, loopbackOnly, makeParts, refuseAll } from './helpers.ts';

let server: S3Server;
let reader: S3Client;
const net = { lookup: loopbackOnly, timeoutMs: 10_000 };
const secrets = () => s3Destination.checkSecrets({ access_key_id: S3_ACCESS_KEY_ID, secret_access_key: S3_SECRET_ACCESS_KEY });
const config = (extra: Record<string, unknown> = {}) =>
  s3Destination.checkConfig({
    endpoint: server.endpoint,
    region: 'us-east-1',
    bucket: server.bucket,
    force_path_style: true,
    prefix: 'exports/',
    ...extra,
  });

beforeAll(async () => {
  server = await startS3Server();
  reader = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  });
});
afterAll(async () => {
  reader?.destroy();
  await server?.stop();
});

async function object(key: string): Promise<Buffer> {
  const res = await reader.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

describe('s3 destination (s3rver on loopback)', () => {
  it('lands every part as an object, a large one by multipart upload, contents equal; a retry overwrites', async () => {
    const { parts } = makeParts(MULTIPART_PART_BYTES + 1_000_000);
    const delivered = await s3Destination.upload(parts, { orgId: 'org_1', deliveryId: 'dlv_s3' }, config(), secrets(), net);
    expect(delivered.map((d) => d.location)).toEqual(parts.map((p) => `s3://${server.bucket}/exports/dlv_s3/${p.name}`));
    for (const p of parts) expect((await object(`exports/dlv_s3/${p.name}`)).equals(fs.readFileSync(p.path))).toBe(true);
    await s3Destination.upload(parts, { orgId: 'org_1', deliveryId: 'dlv_s3' }, config(), secrets(), net);
    const listed = await reader.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'exports/dlv_s3/' }));
    expect(listed.Contents!.map((c) => c.Key).sort()).toEqual(parts.map((p) => `exports/dlv_s3/${p.name}`).sort());
  });

  it('testConnection succeeds, and fails with typed errors for an unknown key and a missing bucket', async () => {
    await expect(s3Destination.testConnection(config(), secrets(), net)).resolves.toBeUndefined();
    const badKey = s3Destination.checkSecrets({ access_key_id: 'NOT-A-KEY', secret_access_key: 'x' });
    const denied = s3Destination.upload(makeParts(10).parts.slice(0, 1), { orgId: 'o', deliveryId: 'd' }, config(), badKey, net);
    await expect(denied).rejects.toBeInstanceOf(DestinationAuthError);
    await expect(s3Destination.testConnection(config(), badKey, net)).rejects.toMatchObject({ code: 'DESTINATION_AUTH_FAILED' });
    await expect(s3Destination.testConnection(config({ bucket: 'no-such-bucket' }), secrets(), net)).rejects.toBeInstanceOf(
      DestinationWriteError,
    );
  });

  it('never opens a connection to an endpoint the lookup refuses', async () => {
    const counter = await connectionCounter();
    try {
      lookedUp.length = 0;
      const c = s3Destination.checkConfig({
        endpoint: `http://127.0.0.1:${counter.port}`,
        region: 'us-east-1',
        bucket: 'b-1',
        force_path_style: true,
      });
      const attempt = s3Destination.testConnection(c, secrets(), { lookup: refuseAll });
      await expect(attempt).rejects.toBeInstanceOf(DestinationBlockedError);
      expect(lookedUp.length).toBeGreaterThan(0);
      expect(new Set(lookedUp)).toEqual(new Set(['127.0.0.1']));
      expect(counter.count()).toBe(0);
    } finally {
      await counter.close();
    }
  });

  it('refuses invalid configurations', () => {
    try {
      s3Destination.checkConfig({ endpoint: 'ftp://x', region: 'US', bucket: 'A', object_key_template: '{part}/../x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DestinationConfigError);
      expect((e as DestinationConfigError).issues).toEqual([
        'config.endpoint must be an http(s) URL',
        'config.region has an invalid value',
        'config.bucket has an invalid value',
        'object_key_template may only hold letters, digits, . _ - and / between non-empty segments',
      ]);
    }
  });
});
