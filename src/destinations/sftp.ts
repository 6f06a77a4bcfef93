/**
 * `sftp`: parts land in `remote_dir` on the customer's SSH server (ssh2-sftp-client), named by
 * `file_name_template` (default `{delivery_id}_{part}`). Password or private-key auth. A part is
 * uploaded under `.{name}.partial` and renamed over the final name with the OpenSSH posix-rename
 * extension, so a half-written file is never visible and a retry replaces the same name.
 * `host_key_sha256` (OpenSSH's `SHA256:...` fingerprint), when set, pins the server's host key.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { Checker, checkNameTemplate, renderName } from './config.ts';
import { DestinationAuthError, DestinationUnreachableError, DestinationWriteError, type DestinationError } from './errors.ts';
import { connectSocket, DEFAULT_TIMEOUT_MS } from './net.ts';
import type { DeliveryDestination, NetOptions } from './types.ts';

export interface SftpConfig {
  host: string;
  port: number;
  username: string;
  remote_dir: string;
  file_name_template: string;
  host_key_sha256?: string;
}

export interface SftpSecrets {
  password?: string;
  private_key?: string;
  passphrase?: string;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[?[0-9A-Fa-f:.]+\]?)$/;

function checkConfig(config: unknown): SftpConfig {
  const c = new Checker(config, 'config', ['host', 'port', 'username', 'remote_dir', 'file_name_template', 'host_key_sha256']);
  const host = c.string('host', { required: true, pattern: HOST, max: 253 });
  const port = c.integer('port', 1, 65535) ?? 22;
  const username = c.string('username', { required: true, pattern: /^[A-Za-z0-9._-]{1,64}$/ });
  const remoteDir = c.string('remote_dir', { pattern: /^[^\0\r\n]{1,1024}$/ }) ?? '.';
  const template = checkNameTemplate(c, 'file_name_template', '{delivery_id}_{part}', false);
  const hostKey = c.string('host_key_sha256', { pattern: /^(SHA256:)?[A-Za-z0-9+/]{43}=?$/ });
  return c.done({
    host: host!,
    port,
    username: username!,
    remote_dir: remoteDir,
    file_name_template: template,
    ...(hostKey ? { host_key_sha256: hostKey.replace(/^SHA256:/, '').replace(/=$/, '') } : {}),
  });
}

function checkSecrets(secrets: unknown): SftpSecrets {
  const c = new Checker(secrets, 'secrets', ['password', 'private_key', 'passphrase']);
  const password = c.string('password', { max: 1024 });
  const privateKey = c.string('private_key', { max: 16_384 });
  const passphrase = c.string('passphrase', { max: 1024 });
  if (!password && !privateKey) c.issues.push('secrets need a password or a private_key');
  return c.done({
    ...(password ? { password } : {}),
    ...(privateKey ? { private_key: privateKey } : {}),
    ...(passphrase ? { passphrase } : {}),
  });
}

/** Maps an ssh2 / ssh2-sftp-client failure to a destination error. */
function classify(error: unknown, host: string): DestinationError {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('DESTINATION_'))
    return error as DestinationError;
  const message = error instanceof Error ? error.message : String(error);
  if (/authentication methods failed|authentication failure/i.test(message)) {
    return new DestinationAuthError(`SFTP server ${host} rejected the credentials`, { cause: error });
  }
  if (
    /host key|host denied|verification failed|handshake|timed out|ECONNRESET|ECONNREFUSED|EPIPE|connection lost|not connected/i.test(
      message,
    )
  ) {
    return new DestinationUnreachableError(`SFTP server ${host}: ${message}`, { cause: error });
  }
  return new DestinationWriteError(`SFTP server ${host}: ${message}`, { cause: error });
}

async function connect(config: SftpConfig, secrets: SftpSecrets, net: NetOptions): Promise<SftpClient> {
  const sock = await connectSocket(net, config.host, config.port);
  const client = new SftpClient('delivery');
  try {
    await client.connect({
      sock,
      host: config.host,
      port: config.port,
      username: config.username,
      ...(secrets.password ? { password: secrets.password } : {}),
      ...(secrets.private_key ? { privateKey: secrets.private_key } : {}),
      ...(secrets.passphrase ? { passphrase: secrets.passphrase } : {}),
      readyTimeout: net.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: 0,
      ...(config.host_key_sha256
        ? { hostVerifier: (key: Buffer) => createHash('sha256').update(key).digest('base64').replace(/=+$/, '') === config.host_key_sha256 }
        : {}),
    });
    return client;
  } catch (error) {
    sock.destroy();
    await client.end().catch(() => {});
    throw classify(error, config.host);
  }
}

async function checkRemoteDir(client: SftpClient, config: SftpConfig): Promise<void> {
  const stat = await client.stat(config.remote_dir).catch((cause: unknown) => {
    throw new DestinationWriteError(`remote_dir ${config.remote_dir} does not exist on ${config.host}`, { cause });
  });
  if (!stat.isDirectory) throw new DestinationWriteError(`remote_dir ${config.remote_dir} on ${config.host} is not a directory`);
}

export const sftpDestination: DeliveryDestination<SftpConfig, SftpSecrets> = {
  kind: 'sftp',
  checkConfig,
  targetHost: (config) => config.host,
  checkSecrets,
  async testConnection(config, secrets, net) {
    const client = await connect(config, secrets, net);
    try {
      await checkRemoteDir(client, config);
    } finally {
      await client.end().catch(() => {});
    }
  },
  async upload(parts, target, config, secrets, net) {
    const client = await connect(config, secrets, net);
    try {
      await checkRemoteDir(client, config);
      const delivered = [];
      for (const part of parts) {
        const name = renderName(config.file_name_template, { delivery_id: target.deliveryId, org_id: target.orgId, part: part.name });
        const final = path.posix.join(config.remote_dir, name);
        const partial = path.posix.join(config.remote_dir, `.${name}.partial`);
        try {
          await client.fastPut(part.path, partial);
          await client.posixRename(partial, final);
        } catch (error) {
          await client.delete(partial, true).catch(() => {});
          throw classify(error, config.host);
        }
        delivered.push({ name: part.name, location: final, bytes: part.bytes });
      }
      return delivered;
    } finally {
      await client.end().catch(() => {});
    }
  },
};
