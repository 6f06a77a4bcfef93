import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DestinationAuthError,
  DestinationBlockedError,
  DestinationConfigError,
  DestinationUnreachableError,
  DestinationWriteError,
  sftpDestination,
} from '../../src/destinations/index.ts';
import { startSftpServer, type SftpServer } from '../helpers/sftp-server.ts';
import { connectionCounter, lookedUp, loopbackOnly, makeParts, refuseAll } from './helpers.ts';

let server: SftpServer;
const net = { lookup: loopbackOnly, timeoutMs: 10_000 };
const target = { orgId: 'org_1', deliveryId: 'dlv_abc' };

beforeAll(async () => {
  server = await startSftpServer();
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

const config = (extra: Record<string, unknown> = {}) =>
  sftpDestination.checkConfig({ host: server.host, port: server.port, username: server.username, remote_dir: server.root, ...extra });

describe('sftp destination (OpenSSH on loopback)', () => {
  it('lands every part under the template name with password auth, contents equal, and a retry replaces them', async () => {
    const { parts } = makeParts(300_000);
    const secrets = sftpDestination.checkSecrets({ password: server.password });
    const delivered = await sftpDestination.upload(parts, target, config(), secrets, net);
    expect(delivered.map((d) => d.location)).toEqual(parts.map((p) => path.posix.join(server.root, `dlv_abc_${p.name}`)));
    for (const p of parts) expect(fs.readFileSync(path.join(server.root, `dlv_abc_${p.name}`))).toEqual(fs.readFileSync(p.path));
    await sftpDestination.upload(parts, target, config(), secrets, net);
    // Same names again, no second copy and no partial file left behind.
    expect(fs.readdirSync(server.root).sort()).toEqual(parts.map((p) => `dlv_abc_${p.name}`).sort());
  });

  it('authenticates with a private key and pins the host key', async () => {
    const { parts } = makeParts(10);
    const secrets = sftpDestination.checkSecrets({ private_key: server.privateKey });
    const pinned = config({ file_name_template: 'key-{delivery_id}-{part}', host_key_sha256: `SHA256:${server.hostKeySha256}` });
    await sftpDestination.upload(parts.slice(0, 1), target, pinned, secrets, net);
    expect(fs.readFileSync(path.join(server.root, `key-dlv_abc-${parts[0]!.name}`))).toEqual(fs.readFileSync(parts[0]!.path));
    const wrongHost = config({ host_key_sha256: 'A'.repeat(43) });
    await expect(sftpDestination.testConnection(wrongHost, secrets, net)).rejects.toBeInstanceOf(DestinationUnreachableError);
  });

  it('testConnection succeeds, and fails with typed errors for a wrong password and a missing folder', async () => {
    await expect(sftpDestination.testConnection(config(), { password: server.password }, net)).resolves.toBeUndefined();
    const denied = sftpDestination.testConnection(config(), { password: 'wrong-password' }, net);
    await expect(denied).rejects.toBeInstanceOf(DestinationAuthError);
    await expect(denied).rejects.toMatchObject({ code: 'DESTINATION_AUTH_FAILED' });
    const missing = sftpDestination.testConnection(config({ remote_dir: '/no/such/dir' }), { password: server.password }, net);
    await expect(missing).rejects.toBeInstanceOf(DestinationWriteError);
  });

  it('never opens a connection to a host the lookup refuses, IP literals included', async () => {
    const counter = await connectionCounter();
    try {
      lookedUp.length = 0;
      const c = sftpDestination.checkConfig({ host: '127.0.0.1', port: counter.port, username: 'x' });
      const attempt = sftpDestination.testConnection(c, { password: 'x' }, { lookup: refuseAll });
      await expect(attempt).rejects.toBeInstanceOf(DestinationBlockedError);
      await expect(attempt).rejects.toMatchObject({ code: 'DESTINATION_BLOCKED', host: '127.0.0.1' });
      expect(lookedUp).toEqual(['127.0.0.1']);
      expect(counter.count()).toBe(0);
    } finally {
      await counter.close();
    }
  });

  it('refuses invalid configurations and secrets, listing every problem', () => {
    expect(() => sftpDestination.checkConfig({ port: 0, user: 'x', file_name_template: '{delivery_id}' })).toThrow(DestinationConfigError);
    try {
      sftpDestination.checkConfig({ port: 0, user: 'x', file_name_template: '../{delivery_id}' });
    } catch (e) {
      expect((e as DestinationConfigError).issues).toEqual([
        'config.user is not a known setting',
        'config.host is required',
        'config.port must be an integer from 1 to 65535',
        'config.username is required',
        'file_name_template must contain {part}',
        'file_name_template may only hold letters, digits, . _ -',
      ]);
    }
    expect(() => sftpDestination.checkSecrets({})).toThrow('secrets need a password or a private_key');
  });
});
