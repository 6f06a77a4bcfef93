import { beforeAll, describe, expect, it } from 'vitest';
import { agentServer } from '../agents/setup.ts';
import { createTestOrg } from '../helpers/app.ts';
import type { OAuthServer } from '../oauth/setup.ts';

/**
 * Issue 31, point 14: a body the JSON-RPC endpoints cannot read ({mcp_url}, {a2a_url}/a2a in A2A 1.0
 * and 0.3) is a JSON-RPC 2.0 Parse error, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}`
 * with HTTP 400, not REST's envelope; the envelope rides in `error.data` with its request_id.
 */
let server: OAuthServer;
let token: string;
beforeAll(async () => {
  server = await agentServer();
  token = await (await createTestOrg(server)).token(['discovery', 'creator', 'account']);
}, 300_000);

const endpoints = (): { name: string; url: string; headers: Record<string, string> }[] => [
  {
    name: 'MCP',
    url: server.resources.mcp,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  },
  { name: 'A2A 1.0', url: `${server.resources.a2a}/a2a`, headers: { 'a2a-version': '1.0' } },
  { name: 'A2A 0.3', url: `${server.resources.a2a}/a2a`, headers: {} },
];

async function post(url: string, headers: Record<string, string>, body: string | Buffer, contentType = 'application/json') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('JSON-RPC endpoints refuse what they cannot read as JSON-RPC errors', () => {
  it('malformed JSON is 400 with a -32700 Parse error and id null', async () => {
    for (const { name, url, headers } of endpoints()) {
      for (const text of ['{"jsonrpc":"2.0","id":1,"method":', 'not json', '{"a":1}}']) {
        const res = await post(url, headers, text);
        expect(res.status, `${name} ${text}`).toBe(400);
        expect(res.body, name).toMatchObject({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
        });
        expect(res.body.error.data, name).toMatchObject({ error: 'INVALID_JSON', request_id: expect.stringMatching(/^req_/) });
        expect(res.body).not.toHaveProperty('code'); // not REST's envelope at the top level
      }
    }
  });

  it('a body that is not the Content-Encoding it declares is a Parse error too; other unreadable bodies are JSON-RPC errors', async () => {
    for (const { name, url, headers } of endpoints()) {
      const gz = await post(url, { ...headers, 'content-encoding': 'gzip' }, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
      expect(gz.status, name).toBe(400);
      expect(gz.body, name).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
        const other = await post(url, headers, 'hello', contentType);
        expect([200, 400, 415], `${name} ${contentType}`).toContain(other.status);
        expect(other.body, `${name} ${contentType}`).toMatchObject({
          jsonrpc: '2.0',
          id: null,
          error: { code: expect.any(Number), message: expect.any(String) },
        });
      }
      const unknown = await post(url, { ...headers, 'content-encoding': 'compress' }, '{}');
      expect(unknown.status, name).toBe(415);
      expect(unknown.body, name).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    }
  });
});
