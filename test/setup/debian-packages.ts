/**
 * vitest globalSetup: what the tests need from Debian, installed with apt-get once when missing (we are
 * root on the test machines): chromium for the browser test (driven through playwright-core, never a
 * downloaded browser) and curl for the README tour, which runs the README's commands as written.
 * The SFTP tests install openssh-server themselves (test/helpers/sftp-server.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const CURL = '/usr/bin/curl';

const NEEDED: [binary: string, pkg: string][] = [
  [CHROMIUM, 'chromium'],
  [CURL, 'curl'],
];

export default function setup(): void {
  const missing = NEEDED.filter(([binary]) => !existsSync(binary)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.warn(`Missing and this is not root: install with "apt-get install ${missing.join(' ')}"; the tests that need them will fail.`);
    return;
  }
  console.warn(`Missing: installing Debian's ${missing.join(', ')} (apt-get), once.`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}
