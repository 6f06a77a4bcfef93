/**
 * Overhead of the privacy layer on a count (docs/decisions/015-privacy-threat-model.md): the time to
 * canonicalize a question and noise its total, and a 50-bucket group_by, per call, next to a plain
 * DuckDB count over 1M in-memory rows for scale. `npx tsx bench/privacy.ts` (prints JSON).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { FilterCondition } from '../src/graph/filters/index.ts';
import type { MembershipQuery } from '../src/graph/membership/types.ts';
import { createPrivacyWithSecret, questionOf } from '../src/modules/privacy/index.ts';

const privacy = createPrivacyWithSecret({ secret: 'bench-secret', floor: 50, lookupK: 10 });

function query(conditions: number, salt: number): MembershipQuery {
  const filters: FilterCondition[] = Array.from({ length: conditions }, (_, i) => ({
    field: i % 2 ? 'age' : 'state',
    op: i % 2 ? '>=' : 'IN',
    value: i % 2 ? salt % 90 : ['CA', 'TX', `S${salt}`],
  }));
  return { kind: 'filters', groups: [{ id: 'g', combinator: 'AND', filters }] };
}

function time(label: string, n: number, f: (i: number) => void): { label: string; calls: number; us_per_call: number } {
  for (let i = 0; i < Math.min(1000, n); i++) f(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f(i);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
  return { label, calls: n, us_per_call: Math.round(us * 100) / 100 };
}

const results = [
  time('count, 1 condition', 20_000, (i) => privacy.protectTotal({ question: questionOf(query(1, i)), trueCount: 10_000 + i })),
  time('count, 5 conditions', 20_000, (i) => privacy.protectTotal({ question: questionOf(query(5, i)), trueCount: 10_000 + i })),
  time('count, 20 conditions', 5_000, (i) => privacy.protectTotal({ question: questionOf(query(20, i)), trueCount: 10_000 + i })),
  time('group_by, 1 condition, 50 buckets', 2_000, (i) =>
    privacy.protectGroups({
      question: questionOf(query(1, i)),
      dimension: 'state',
      buckets: Array.from({ length: 50 }, (_, b) => ({ group_value: `S${b}`, count: 100 + b * 7 })),
    }),
  ),
];

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run('CREATE TABLE p AS SELECT i AS k, i % 50 AS s, i % 90 AS age FROM range(1000000) t(i)');
await conn.run('SELECT count(*) FROM p WHERE s IN (1, 2) AND age >= 30');
const t0 = process.hrtime.bigint();
for (let i = 0; i < 20; i++) await conn.runAndReadAll(`SELECT count(*) FROM p WHERE s IN (1, ${i + 2}) AND age >= 30`);
const duckUs = Number(process.hrtime.bigint() - t0) / 1000 / 20;
conn.closeSync();
db.closeSync();

console.log(
  JSON.stringify(
    { results, reference: { label: 'DuckDB count, 1M in-memory rows, 2 conditions', us_per_call: Math.round(duckUs) } },
    null,
    2,
  ),
);
