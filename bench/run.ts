import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (all when none is named), each in its own
 * process so one's memory does not colour another's. Results are JSON on stdout; record them with the
 * command in docs/benchmarks.md.
 */
const ALL: [name: string, args: string[]][] = [
  ['http', []],
  ['graph-generate', []],
  ['graph-release', ['--persons', '200000']],
  ['graph-release', ['--persons', '1000000']],
  ['discovery', []],
  ['audiences', []],
  ['match-quality', []],
  ['match-latency', []],
  ['match-http', []],
  ['match-throughput', []],
  ['match-hardened', ['--persons', '200000', '--rows', '40000']],
  // Issue #15: the match index of the 10M graph rebuilt (time, peak RSS, keys per block kind).
  ['match-index-build', ['--rebuild']],
  // Issue #15: the file path's read pass and candidate statement alone, on the mixed 1M-row file at 10M.
  ['match-candidates', ['--profile']],
  // Issue #7: 1M rows against the 10M graph (graph-generate's), as CSV and gzip; quality through the
  // file path on match-quality's 200k graph.
  ['file-match', []],
  ['file-match', ['--gzip']],
  ['file-match', ['--graph-dir', '.bench/match-data', '--rows', '40000', '--quality']],
  ['upload', []],
  ['webhooks', []],
  // Issue #14: a 1M-member audience of the 10M graph exported with standard_enrichment, every format.
  ['export', []],
  // Issue #14: a delivery of about 100k members end to end over HTTP (request to completed, then download).
  ['delivery', []],
  ['oauth', []],
  // Issue #12: request bounds and the sliding-window limiter.
  ['security', []],
  // Issue #16: license lookups and charges for 1M licensed persons.
  ['licenses', []],
  // Issue #19: model quality on a 1M graph with planted truth, and a propensity segment end to end at 10M.
  ['models', []],
  // Issue #12: the privacy layer's overhead on a count.
  ['privacy', []],
  // Issue 12: master-key rotation and signing-key roll; a killed worker's file match resumed elsewhere.
  ['keys', []],
  ['job-resume', []],
  // Issue #19: a similarity segment built through the service (HTTP, pg-boss worker) on a small graph.
  ['model-segments', []],
  // Issue #18: an operation over REST, MCP tools/call and A2A SendMessage.
  ['agents', []],
];
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = names.length ? ALL.filter(([n]) => names.includes(n)) : ALL;
let failed = 0;
for (const name of names.filter((n) => !ALL.some(([a]) => a === n))) {
  console.error(`bench: no benchmark named ${name}`);
  failed += 1;
}
for (const [name, args] of selected) {
  const file = join(import.meta.dirname, `${name}.ts`);
  if (!existsSync(file)) {
    console.error(`bench: no benchmark named ${name}`);
    failed += 1;
    continue;
  }
  console.error(`\n== bench ${[name, ...args].join(' ')} ==`);
  const result = spawnSync(join(import.meta.dirname, '..', 'node_modules/.bin/tsx'), [file, ...args], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
