/**
 * Issue 12 bounds and limiter: how long requests at and past the per-request bounds take on a 200k
 * graph (the probe's 60,000 conditions took 73 s, 20,000 OR groups 19.7 s), and the sliding-window
 * limiter's throughput under load (two limiter instances on one embedded control plane, as two API
 * processes). Run: npx tsx bench/security.ts [persons]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { generateGraph } from '../src/graph/generate.ts';
import { FILTER_BOUNDS } from '../src/graph/filters/index.ts';
import { createRateLimiter } from '../src/http/rate-limit/limiter.ts';
import { createRateLimitStore } from '../src/http/rate-limit/store.ts';
import { systemClock } from '../src/lib/clock.ts';
import { startBenchApp } from './lib/app.ts';

const persons = Number(process.argv[2] ?? 200_000);
const dataDir = mkdtempSync(path.join(tmpdir(), 'ads-bench-sec-'));
await generateGraph({ dataDir, persons, seed: 5, releaseDate: '2026-01-01', threads: 2, memoryLimit: '1GB' });
const bench = await startBenchApp({ dataDir, scopes: ['discovery'] });

async function time(label: string, body: unknown, runs = 5) {
  const ms: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const payload = JSON.stringify(body);
    bytes = payload.length;
    const started = performance.now();
    const res = await fetch(`${bench.address}/v1/discovery/count`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
      body: payload,
    });
    await res.text();
    ms.push(performance.now() - started);
    status = res.status;
  }
  ms.sort((a, b) => a - b);
  return {
    request: label,
    body_bytes: bytes,
    status,
    median_ms: Math.round(ms[Math.floor(ms.length / 2)]!),
    max_ms: Math.round(ms.at(-1)!),
  };
}

const cond = (i: number) => ({ field: 'city', op: 'LIKE', value: `%${'AEIOU'[i % 5]}%${'AEIOU'[(i * 3) % 5]}%` });
const requests = [
  await time('60,000 conditions (refused)', {
    filters: Array.from({ length: 60_000 }, (_, i) => ({ field: 'state', op: '=', value: i % 2 ? 'CA' : 'TX' })),
  }),
  await time('20,000 OR groups (refused)', {
    filter_groups: Array.from({ length: 20_000 }, (_, i) => ({
      id: `g${i}`,
      combinator: 'OR',
      filters: [{ field: 'state', op: '=', value: 'CA' }],
    })),
  }),
  await time(`${FILTER_BOUNDS.groups} OR groups x ${FILTER_BOUNDS.conditions / FILTER_BOUNDS.groups} LIKE conditions (at the bound)`, {
    filter_groups: Array.from({ length: FILTER_BOUNDS.groups }, (_, i) => ({
      id: `g${i}`,
      combinator: 'OR',
      filters: Array.from({ length: FILTER_BOUNDS.conditions / FILTER_BOUNDS.groups }, (_, j) => cond(i + j)),
    })),
  }),
  await time(`${FILTER_BOUNDS.conditions} AND conditions, group_by state (at the bound)`, {
    filters: Array.from({ length: FILTER_BOUNDS.conditions }, () => ({ field: 'age', op: '>=', value: 18 })),
    group_by: 'state',
  }),
  await time('5 IN lists of 1,000 ZIPs (at the bound)', {
    filters: Array.from({ length: 5 }, (_, k) => ({
      field: 'zip',
      op: 'IN',
      value: Array.from({ length: 1000 }, (_, i) => String(10000 + k * 1000 + i)),
    })),
  }),
];
await bench.close();

// The limiter alone: 2 instances, 200 keys, 50 concurrent callers each, limit 6,000 per minute.
const database = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || null,
  dataDir: mkdtempSync(path.join(tmpdir(), 'ads-bench-rl-')),
});
const store = createRateLimitStore(database.db);
const limiters = [createRateLimiter({ store, clock: systemClock }), createRateLimiter({ store, clock: systemClock })];
const seconds = 5;
let decisions = 0;
let allowed = 0;
const until = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: 100 }, async (_, w) => {
    const limiter = limiters[w % 2]!;
    while (Date.now() < until) {
      const d = await limiter.check(`bench-key-${(w * 7 + decisions) % 200}`, 6000);
      decisions++;
      if (d.allowed) allowed++;
    }
  }),
);
await database.close();

console.log(
  JSON.stringify(
    {
      benchmark: 'security-bounds-and-limiter',
      persons,
      requests,
      limiter: {
        instances: 2,
        keys: 200,
        callers: 100,
        seconds,
        decisions_per_second: Math.round(decisions / seconds),
        allowed_share: Number((allowed / decisions).toFixed(3)),
      },
    },
    null,
    2,
  ),
);
process.exit(0);
