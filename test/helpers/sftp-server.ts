/**
 * A real SFTP server for tests: Debian's OpenSSH sshd with `internal-sftp`, on 127.0.0.1 and a free
 * port, with its own host key, config and authorized keys in a temp dir. One test user
 * (`adssftp`) authenticates by password or by a generated ed25519 key. openssh-server is installed with
 * apt-get when missing (as .ci/run does). Needs root, like the rest of the machine setup.
 *
 *   const sftp = await startSftpServer();   // { host, port, username, password, privateKey, hostKeySha256, root }
 *   ...
 *   await sftp.stop();
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SFTP_USER = 'adssftp';
export const SFTP_PASSWORD = 'sftp-test-password-1';
const SSHD = '/usr/sbin/sshd';

export interface SftpServer {
  host: string;
  port: number;
  username: string;
  password: string;
  privateKey: string;
  /** OpenSSH-style SHA256 fingerprint of the host key (base64, no padding). */
  hostKeySha256: string;
  /** A directory the test user owns: upload targets go here. */
  root: string;
  stop(): Promise<void>;
}

/** Installs openssh-server when sshd is missing (apt-get; the machine's one-time setup). */
export function ensureOpenSsh(): void {
  if (fs.existsSync(SSHD)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'openssh-server'], { stdio: 'ignore', env });
}

/** The test user, with a password (a `useradd` user is locked until it has one). */
function ensureUser(): void {
  try {
    execFileSync('id', [SFTP_USER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/usr/sbin/nologin', SFTP_USER], { stdio: 'ignore' });
  }
  execFileSync('chpasswd', [], { input: `${SFTP_USER}:${SFTP_PASSWORD}\n`, stdio: ['pipe', 'ignore', 'ignore'] });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`sshd exited (${child.exitCode}): ${log()}`));
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`sshd did not listen on ${port}: ${log()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startSftpServer(): Promise<SftpServer> {
  ensureOpenSsh();
  ensureUser();
  fs.mkdirSync('/run/sshd', { recursive: true }); // sshd's privilege separation directory
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-sftp-'));
  fs.chmodSync(dir, 0o755);
  const hostKey = path.join(dir, 'host_ed25519');
  const userKey = path.join(dir, 'user_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  const keys = path.join(dir, 'authorized_keys');
  fs.mkdirSync(keys);
  fs.copyFileSync(`${userKey}.pub`, path.join(keys, SFTP_USER));
  const root = path.join(dir, 'home');
  fs.mkdirSync(root);
  execFileSync('chown', [`${SFTP_USER}:`, root]);
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${keys}/%u`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `AllowUsers ${SFTP_USER}`,
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  let stderr = '';
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await waitForPort(port, child, () => stderr);
  // The fingerprint ssh-keygen -l shows, computed from the public key blob.
  const blob = Buffer.from(fs.readFileSync(`${hostKey}.pub`, 'utf8').split(' ')[1]!, 'base64');
  return {
    host: '127.0.0.1',
    port,
    username: SFTP_USER,
    password: SFTP_PASSWORD,
    privateKey: fs.readFileSync(userKey, 'utf8'),
    hostKeySha256: createHash('sha256').update(blob).digest('base64').replace(/=+$/, ''),
    root,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
