import { beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_ROUTES } from '../../src/modules/oauth/index.ts';
import { agentServer } from '../agents/setup.ts';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { answerShape, concreteUrl, routeList, type RouteCase } from './route-walk.ts';

/**
 * Issue 31, point 1: a body that is not the Content-Encoding it declares, or an encoding the service
 * does not know, sent to every registered route of every adapter (the list is the app's own, so a new
 * route is covered without touching this file): a 4xx in the route's protocol (REST envelope, RFC 6749
 * error, JSON-RPC error), never a 5xx, and the service answers afterwards. Before the fix the first
 * bad gzip body to an authorization-server endpoint or a GET ended the process.
 */
const MALFORMED: { encoding: string; body: Buffer }[] = [
  { encoding: 'gzip', body: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]) }, // the audit's bytes: a truncated gzip header
  { encoding: 'gzip', body: Buffer.from('{"not":"gzip"}') },
  { encoding: 'deflate', body: Buffer.from([0x78, 0x9c, 0xff, 0xff, 0x00]) },
  { encoding: 'br', body: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00, 0x01]) },
  { encoding: 'compress', body: Buffer.from('{}') },
  { encoding: 'gzip, br', body: Buffer.from('{}') },
];
const CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'application/octet-stream'];

let server: OAuthServer;
let org: TestOrg;
let token: string;
let routes: RouteCase[];
beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  token = await org.token(['discovery', 'creator', 'account']);
  routes = routeList(server.routes);
}, 300_000);

describe('malformed Content-Encoding on every registered route', () => {
  it('covers every adapter: REST, the authorization server, the pages, MCP, A2A, uploads, downloads', () => {
    const urls = new Set(routes.map((r) => r.url));
    for (const url of [
      OAUTH_ROUTES.token,
      OAUTH_ROUTES.revocation,
      OAUTH_ROUTES.device_authorization,
      OAUTH_ROUTES.registration,
      OAUTH_ROUTES.code_verification,
      '/mcp',
      '/agent/a2a',
      '/v1/segments',
      '/v1/auth/token',
      '/healthz',
    ]) {
      expect(urls, url).toContain(url);
    }
    expect(
      [...urls].some((u) => u.includes('/uploads/') || u.includes('upload')),
      'an upload route',
    ).toBe(true);
    expect(routes.length).toBeGreaterThan(80);
  });

  it("answers each with a 4xx in the route's own protocol, never a 5xx", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const route of routes) {
      for (const { encoding, body } of MALFORMED) {
        const contentType = CONTENT_TYPES[sent % CONTENT_TYPES.length]!;
        sent++;
        const res = await server.app.inject({
          method: route.method,
          url: concreteUrl(route.url),
          headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-encoding': encoding },
          payload: body,
        });
        const problem = answerShape(route, res, { expect4xx: true, strict: true });
        if (problem) failures.push(`${route.method} ${route.url} [${encoding}, ${contentType}]: ${problem}`);
      }
    }
    expect(sent).toBeGreaterThan(400);
    expect(failures).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it("the authorization server's endpoints answer RFC 6749 invalid_request over a real socket", async () => {
    for (const path of [
      OAUTH_ROUTES.token,
      OAUTH_ROUTES.revocation,
      OAUTH_ROUTES.device_authorization,
      OAUTH_ROUTES.registration,
      OAUTH_ROUTES.code_verification,
    ]) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        body: MALFORMED[0]!.body,
      });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('a well-formed gzip body still works where bodies are decoded, and a GET with a broken one is refused', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`${server.url}/v1/discovery/count`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ filters: [{ field: 'state', op: '=', value: 'CA' }] })),
    });
    expect(res.status).toBe(200);
    const get = await server.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'content-encoding': 'gzip' },
      payload: MALFORMED[0]!.body,
    });
    expect(get.statusCode).toBe(400);
    expect(get.json()).toMatchObject({ error: 'INVALID_REQUEST', request_id: expect.stringMatching(/^req_/) });
    const nowhere = await server.app.inject({
      method: 'POST',
      url: '/v1/no-such-route',
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
      payload: MALFORMED[0]!.body,
    });
    expect(nowhere.statusCode).toBeGreaterThanOrEqual(400);
    expect(nowhere.statusCode).toBeLessThan(500);
  });
});
