#!/usr/bin/env node
// The `ads` command. It runs src/main.ts on the project's own Node 24 (the `node` devDependency),
// which executes TypeScript itself (--experimental-transform-types): no build step, no loader, and
// no warnings from an older system Node.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundled = join(root, 'node_modules', 'node', 'bin', 'node');
const node = existsSync(bundled) ? bundled : process.execPath;
const args = [
  '--experimental-transform-types',
  '--disable-warning=ExperimentalWarning',
  join(root, 'src', 'main.ts'),
  ...process.argv.slice(2),
];
const result = spawnSync(node, args, { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`ads: could not start Node (${result.error.message}); run npm install first.\n`);
  process.exit(1);
}
process.exit(result.status ?? 1);
