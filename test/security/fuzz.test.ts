import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../src/core/operation.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { generateTestGraph } from '../discovery/graph.ts';

/**
 * A fuzz walk over every declared operation (the app's operation list, so a new operation is covered
 * without touching this file): hostile values in each path parameter, query parameter and body
 * property its schema declares, and hostile whole bodies. No answer may be a 5xx, and every refusal
 * carries the spec section 7 envelope with a request_id. The generator is seeded: runs repeat.
 */
const deep = (n: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = [v];
  return v;
};
const HOSTILE_VALUES: unknown[] = [
  'a\u0000b',
  '\u0007',
  'x\ud800',
  '\udfff',
  'x'.repeat(20_000),
  "' OR 1=1 --",
  '%_\\',
  '\\',
  '../../../etc/passwd',
  '${jndi:ldap://x}',
  '',
  ' ',
  -1,
  0,
  1e308,
  -1e308,
  2 ** 64,
  1.5,
  true,
  null,
  {},
  [],
  [null],
  { ['\ud800']: 1 },
  deep(200),
  deep(20),
  ['a'.repeat(10_000)],
  Array.from({ length: 3000 }, (_, i) => i),
  '2026-02-30',
  '9999-99-99T99:99:99Z',
  'NaN',
];
const HOSTILE_IDS = ['%00', '%01abc', 'x'.repeat(300), '%E0%A4%A', '..%2F..%2Fetc', "'%20OR%201=1", '%ED%A0%80', 'seg_%7F', '%20', 'null'];
const HOSTILE_BODIES = ['[]', '"text"', '123', 'null', '{', '{"a":1}}', '['.repeat(3000), JSON.stringify(deep(100)), '{"\\ud800":1}'];

/** A small seeded PRNG (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const propsOf = (schema: unknown): string[] =>
  Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

let t: TestApp;
let token: string;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ads-fuzz-'));
  await generateTestGraph(dataDir, 2000);
  t = await testApp({ config: { dataDir } });
  token = await (await createTestOrg(t)).token(['discovery', 'creator', 'account']);
});
afterAll(() => t.app.close());

describe('fuzz over every operation schema', () => {
  it('no 5xx, and every refusal is in the envelope with a request_id', async () => {
    const operations = t.services.operations as readonly Operation[];
    expect(operations.length).toBeGreaterThan(40);
    const random = rng(12);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const failures: string[] = [];
    let sent = 0;

    async function send(op: Operation, url: string, payload: string | undefined, label: string) {
      sent++;
      const res = await t.app.inject({
        method: op.method as 'GET',
        url,
        headers: { ...bearer(token), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(payload !== undefined ? { payload } : {}),
      });
      const where = `${op.id} ${label}: ${res.statusCode} ${res.body.slice(0, 160)}`;
      if (res.statusCode >= 500) return failures.push(where);
      if (res.statusCode >= 400) {
        let body: any;
        try {
          body = res.json();
        } catch {
          return failures.push(`not JSON: ${where}`);
        }
        if (typeof body.error !== 'string' || typeof body.message !== 'string' || !/^req_/.test(String(body.request_id)))
          failures.push(`no envelope: ${where}`);
      }
    }

    const pathWith = (op: Operation, hostileParam?: string, hostile?: string) =>
      op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === hostileParam ? hostile! : `${name}_fuzz0000000000`));

    for (const op of operations) {
      const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const hasBody = op.input.body !== undefined && !op.rawBody && op.method !== 'GET';
      const validishBody = hasBody ? '{}' : undefined;
      for (const param of params) {
        for (const id of HOSTILE_IDS) await send(op, pathWith(op, param, id), validishBody, `path ${param}=${id.slice(0, 20)}`);
      }
      for (const q of propsOf(op.input.query)) {
        for (let i = 0; i < 4; i++) {
          const v = pick(HOSTILE_VALUES);
          const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
          await send(
            op,
            `${pathWith(op)}?${q}=${encodeURIComponent((text.slice(0, 4000) as unknown as { toWellFormed(): string }).toWellFormed()).replace(/%EF%BF%BD/g, '%ED%A0%80')}`,
            validishBody,
            `query ${q}`,
          );
        }
      }
      if (!hasBody) continue;
      for (const body of HOSTILE_BODIES) await send(op, pathWith(op), body, `body ${body.slice(0, 12)}`);
      const example = (op.examples[0]?.request as { body?: Record<string, unknown> } | undefined)?.body;
      const base = example && typeof example === 'object' && !Array.isArray(example) ? example : {};
      for (const prop of propsOf(op.input.body)) {
        for (let i = 0; i < 5; i++) {
          const v = pick(HOSTILE_VALUES);
          await send(op, pathWith(op), JSON.stringify({ ...base, [prop]: v }), `body.${prop}=${JSON.stringify(v)?.slice(0, 30)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 300_000);
});
