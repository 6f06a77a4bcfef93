import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { agentServer } from '../agents/setup.ts';
import { createTestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { answerShape, concreteUrl, routeList, type RouteCase } from './route-walk.ts';

/**
 * Issue 31: a bounded, seeded fuzz over every registered route of every adapter (BuiltApp.routes, so a
 * new route is covered without touching this file) with malformed encodings, malformed bodies (broken
 * JSON, wrong or broken content types, odd values) and, on the JSON-RPC endpoints, malformed JSON-RPC
 * envelopes. Nothing may answer 5xx, every refusal is in its route's protocol, no failure escapes to the
 * process (no uncaught exception, no unhandled rejection), and the service answers afterwards.
 * test/security/fuzz.test.ts walks the REST operations' declared parameters; this walks the routes.
 */
const SEED = 31;

const deep = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};
const ODD_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  -1e308,
  2 ** 64,
  'a\u0000b',
  'x\ud800',
  'x'.repeat(100_000),
  '',
  [],
  {},
  [[[[]]]],
  deep(40),
  deep(5),
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { constructor: { prototype: { polluted: true } } },
  Array.from({ length: 5000 }, (_, i) => i),
  '../../etc/passwd',
  '${jndi:ldap://x}',
  "' OR 1=1 --",
];
const BROKEN_JSON = [
  '{',
  '[',
  '{"a":',
  'nul',
  '{"a":1}}',
  '\u0000',
  '"unterminated',
  '{"a":1,}',
  '['.repeat(5000),
  '{"a":"\\ud800"}',
  '\ufeff{}',
  '  ',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/xml',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  '???',
  'application/json;;;',
  'text/csv',
];
const ENCODINGS: { encoding: string; body: Buffer }[] = [
  { encoding: 'gzip', body: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]) },
  { encoding: 'deflate', body: Buffer.from('not deflate') },
  { encoding: 'br', body: Buffer.from([0xff, 0x00, 0xff]) },
  { encoding: 'x-unknown', body: Buffer.from('{}') },
  { encoding: 'GZIP ', body: Buffer.from('{}') },
];

/** JSON-RPC messages that are JSON but not (good) JSON-RPC, for MCP and A2A alike. */
function jsonRpcCases(pick: <T>(list: readonly T[]) => T): unknown[] {
  const methods = [
    'tools/call',
    'tools/list',
    'initialize',
    'SendMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'message/send',
    'tasks/get',
    'tasks/cancel',
    'nope',
    '',
  ];
  const cases: unknown[] = [
    {},
    [],
    [{}],
    [1, 2],
    'text',
    42,
    null,
    { jsonrpc: '1.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0' },
    { jsonrpc: '2.0', id: 1 },
    { jsonrpc: '2.0', id: {}, method: 'tools/list' },
    { jsonrpc: '2.0', id: [1], method: 'GetTask' },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 123 } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count_persons', arguments: 'x' } },
    { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { parts: 'x' } } },
    { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { parts: [null, 1, { data: null }] } } },
    { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: 1e9, status: {}, statusTimestampAfter: 'x' } },
    { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: { $ne: null } } },
    Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })),
  ];
  for (let i = 0; i < 30; i++) {
    cases.push({
      jsonrpc: pick(['2.0', '2.0', 2, null]),
      id: pick([1, 'a', null, {}, 1.5, -1]),
      method: pick(methods),
      params: pick([
        ...ODD_VALUES.slice(0, 16),
        { id: pick(ODD_VALUES), message: pick(ODD_VALUES), name: pick(ODD_VALUES), arguments: pick(ODD_VALUES) },
      ]),
    });
  }
  return cases;
}

let server: OAuthServer;
let token: string;
let routes: RouteCase[];
beforeAll(async () => {
  server = await agentServer();
  token = await (await createTestOrg(server)).token(['discovery', 'creator', 'account']);
  routes = routeList(server.routes);
}, 300_000);

describe('seeded fuzz over every registered route', () => {
  it(`no 5xx, refusals in the route's protocol, nothing escapes to the process (seed ${SEED})`, async () => {
    const random = seededRandom(SEED); // the same requests on every run
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const escaped: string[] = [];
    const onEscape = (error: unknown) => escaped.push(String((error as Error)?.stack ?? error));
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
    const failures: string[] = [];
    let sent = 0;
    const send = async (route: RouteCase, label: string, payload: string | Buffer | undefined, headers: Record<string, string>) => {
      sent++;
      const res = await server.app.inject({
        method: route.method,
        url: concreteUrl(route.url),
        payload,
        headers: { ...(random() < 0.85 ? { authorization: `Bearer ${token}` } : {}), ...headers },
      });
      const problem = answerShape(route, res, { expect4xx: false, strict: false });
      if (problem) failures.push(`${route.method} ${route.url} ${label}: ${problem}`);
    };
    try {
      for (const route of routes) {
        const { encoding, body } = pick(ENCODINGS);
        await send(route, `encoding ${encoding}`, body, { 'content-type': pick(CONTENT_TYPES), 'content-encoding': encoding });
        const broken = pick(BROKEN_JSON);
        await send(route, `broken JSON ${JSON.stringify(broken.slice(0, 12))}`, broken, { 'content-type': 'application/json' });
        const type = pick(CONTENT_TYPES);
        await send(route, `content-type ${type}`, pick(['{}', 'a=1&b=2', '<x/>', '\u0000\u0001', 'x'.repeat(70_000)]), {
          'content-type': type,
        });
        for (let i = 0; i < 2; i++) {
          const value = pick(ODD_VALUES);
          const payload = JSON.stringify(
            random() < 0.5 ? value : { [pick(['name', 'filters', 'id', 'scope', 'records', 'grant_type', 'client_id'])]: value },
          );
          await send(route, `odd value ${String(payload).slice(0, 30)}`, payload ?? 'null', { 'content-type': 'application/json' });
        }
      }
      const rpcRoutes = routes.filter((r) => r.protocol === 'jsonrpc' && r.method === 'POST');
      expect(rpcRoutes.map((r) => r.url).sort()).toEqual(['/agent/a2a', '/mcp']);
      for (const route of rpcRoutes) {
        for (const message of jsonRpcCases(pick)) {
          const headers = {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(random() < 0.5 ? { 'a2a-version': '1.0', 'mcp-protocol-version': '2025-11-25' } : {}),
          };
          await send(route, `JSON-RPC ${JSON.stringify(message)?.slice(0, 60)}`, JSON.stringify(message), headers);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200)); // anything that would escape late
    } finally {
      process.off('uncaughtException', onEscape);
      process.off('unhandledRejection', onEscape);
    }
    expect(sent).toBeGreaterThan(700);
    expect(failures).toEqual([]);
    expect(escaped).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 180_000);
});

describe('what the fuzz found', () => {
  it('the device verification endpoints refuse an unknown or malformed code with a 4xx, not 500', async () => {
    for (const [method, path, body] of [
      ['POST', '/v1/oauth/device', 'user_code=NOPE-NOPE'],
      ['POST', '/v1/oauth/device', ''],
      ['GET', '/v1/oauth/device/uid_unknown000', undefined],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
        body,
      });
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
  });
});
