import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (all when none is named), each in its own
 * process so one's memory does not colour another's. Results are JSON on stdout; record them with the
 * command in docs/benchmarks.md.
 */
const ALL = ['http', 'graph-generate', 'discovery', 'audiences', 'match-quality', 'match-latency', 'match-http', 'match-throughput', 'file-match', 'webhooks'];
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = names.length ? names : ALL;
let failed = 0;
for (const name of selected) {
  const file = join(import.meta.dirname, `${name}.ts`);
  if (!existsSync(file)) {
    console.error(`bench: no benchmark named ${name}`);
    failed += 1;
    continue;
  }
  console.error(`\n== bench ${name} ==`);
  const result = spawnSync(join(import.meta.dirname, '..', 'node_modules/.bin/tsx'), [file], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
