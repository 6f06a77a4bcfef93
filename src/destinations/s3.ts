/**
 * `s3`: parts become objects `{prefix}{object_key_template}` (default `{delivery_id}/{part}`) in an
 * S3 or S3-compatible bucket (@aws-sdk/client-s3 v3). `endpoint` + `force_path_style` address
 * S3-compatible servers. Parts above 16 MiB go up as multipart uploads (@aws-sdk/lib-storage), two
 * 16 MiB pieces at a time; an object appears only when its upload completes, and a retry overwrites it.
 * Sockets come from an http(s) Agent that resolves through the caller's lookup (net.ts).
 */
import fs from 'node:fs';
import { HeadBucketCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Checker, checkNameTemplate, renderName } from './config.ts';
import { DestinationAuthError, DestinationUnreachableError, DestinationWriteError, type DestinationError } from './errors.ts';
import { DEFAULT_TIMEOUT_MS, lookupAgent } from './net.ts';
import type { DeliveryDestination, NetOptions } from './types.ts';

export interface S3Config {
  /** Base URL of an S3-compatible server; AWS's regional endpoint when absent. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Key prefix, e.g. `exports/` (no leading slash). */
  prefix: string;
  force_path_style: boolean;
  object_key_template: string;
}

export interface S3Secrets {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
}

/** Parts above this size use multipart upload, in pieces of this size. */
export const MULTIPART_PART_BYTES = 16 * 1024 * 1024;

function checkConfig(config: unknown): S3Config {
  const c = new Checker(config, 'config', ['endpoint', 'region', 'bucket', 'prefix', 'force_path_style', 'object_key_template']);
  const endpoint = c.string('endpoint', { max: 2048 });
  if (endpoint) {
    try {
      const u = new URL(endpoint);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') c.issues.push('config.endpoint must be an http(s) URL');
      if (u.username || u.password || u.search || u.hash) c.issues.push('config.endpoint must not hold credentials, a query or a fragment');
    } catch {
      c.issues.push('config.endpoint must be an http(s) URL');
    }
  }
  const region = c.string('region', { required: true, pattern: /^[a-z0-9-]{2,32}$/ });
  const bucket = c.string('bucket', { required: true, pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/ });
  const prefix = c.string('prefix', { pattern: /^(?!\/)[A-Za-z0-9!_.*'()\-/]{0,512}$/ }) ?? '';
  const template = checkNameTemplate(c, 'object_key_template', '{delivery_id}/{part}', true);
  return c.done({
    ...(endpoint ? { endpoint } : {}),
    region: region!,
    bucket: bucket!,
    prefix,
    force_path_style: c.boolean('force_path_style') ?? false,
    object_key_template: template,
  });
}

function checkSecrets(secrets: unknown): S3Secrets {
  const c = new Checker(secrets, 'secrets', ['access_key_id', 'secret_access_key', 'session_token']);
  const id = c.string('access_key_id', { required: true, max: 256 });
  const key = c.string('secret_access_key', { required: true, max: 256 });
  const token = c.string('session_token', { max: 8192 });
  return c.done({ access_key_id: id!, secret_access_key: key!, ...(token ? { session_token: token } : {}) });
}

function client(config: S3Config, secrets: S3Secrets, net: NetOptions): S3Client {
  const timeout = net.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.force_path_style,
    credentials: {
      accessKeyId: secrets.access_key_id,
      secretAccessKey: secrets.secret_access_key,
      ...(secrets.session_token ? { sessionToken: secrets.session_token } : {}),
    },
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({
      httpAgent: lookupAgent(net, 'http:'),
      httpsAgent: lookupAgent(net, 'https:'),
      connectionTimeout: timeout,
      requestTimeout: 10 * timeout,
    }),
  });
}

function classify(error: unknown, bucket: string): DestinationError {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('DESTINATION_'))
    return error as DestinationError;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    if (status === 401 || status === 403 || /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|ExpiredToken/.test(error.name)) {
      return new DestinationAuthError(`S3 rejected the credentials for bucket ${bucket} (${error.name})`, { cause: error });
    }
    return new DestinationWriteError(`S3 bucket ${bucket}: ${error.name}${status ? ` (${status})` : ''}`, { cause: error });
  }
  // A blocked or unresolvable host surfaces from the agent as our own error, possibly wrapped.
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string' && cause.code.startsWith('DESTINATION_'))
    return cause as DestinationError;
  return new DestinationUnreachableError(`S3 endpoint for bucket ${bucket}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}

export const s3Destination: DeliveryDestination<S3Config, S3Secrets> = {
  kind: 's3',
  checkConfig,
  // Without an endpoint the SDK dials AWS's regional endpoint.
  targetHost: (config) => (config.endpoint ? new URL(config.endpoint).hostname : null),
  checkSecrets,
  async testConnection(config, secrets, net) {
    const s3 = client(config, secrets, net);
    try {
      await s3.send(new HeadBucketCommand({ Bucket: config.bucket }));
    } catch (error) {
      // HeadBucket has no body: a 404 has no error name to show.
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) {
        throw new DestinationWriteError(`S3 bucket ${config.bucket} does not exist`, { cause: error });
      }
      throw classify(error, config.bucket);
    } finally {
      s3.destroy();
    }
  },
  async upload(parts, target, config, secrets, net) {
    const s3 = client(config, secrets, net);
    try {
      const delivered = [];
      for (const part of parts) {
        const key =
          config.prefix + renderName(config.object_key_template, { delivery_id: target.deliveryId, org_id: target.orgId, part: part.name });
        try {
          await new Upload({
            client: s3,
            partSize: MULTIPART_PART_BYTES,
            queueSize: 2,
            leavePartsOnError: false,
            params: { Bucket: config.bucket, Key: key, Body: fs.createReadStream(part.path), ContentLength: part.bytes },
          }).done();
        } catch (error) {
          throw classify(error, config.bucket);
        }
        delivered.push({ name: part.name, location: `s3://${config.bucket}/${key}`, bytes: part.bytes });
      }
      return delivered;
    } finally {
      s3.destroy();
    }
  },
};
