/**
 * vitest globalSetup: the browser tests drive Debian's chromium through playwright-core (never a
 * downloaded browser). When it is missing and we are root, install it with apt-get once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

export default function setup(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) {
    console.warn(`${CHROMIUM} is missing and this is not root: install it with "apt-get install chromium"; the browser test will fail.`);
    return;
  }
  console.warn(`${CHROMIUM} is missing: installing Debian's chromium (apt-get), once.`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
}
