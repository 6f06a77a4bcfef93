/**
 * Idempotency-Key over MCP (spec section 8; ADR 034): a tool whose declaration opts into `idempotency`
 * takes an `idempotency_key` argument (or the request's `Idempotency-Key` header); a retried call with
 * the same key and arguments replays the first answer without doing the work again, other arguments
 * are IDEMPOTENCY_KEY_CONFLICT, and the key is REST's (a REST retry replays an MCP call).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTools } from '../../src/http/agent-tools.ts';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import type { OAuthServer } from '../oauth/setup.ts';
import { agentServer } from './setup.ts';

let server: OAuthServer;
let org: TestOrg;
let token: string;
let client: Client;

beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  token = await org.token(['discovery', 'creator']);
  client = new Client({ name: 'idempotency-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.resources.mcp), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
}, 120_000);
afterAll(async () => client.close().catch(() => {}));

/** A tools/call sent as one HTTP request (so headers apply to it alone); the answer may come as JSON or one SSE event. */
async function rawCall(name: string, args: object, headers: Record<string, string> = {}) {
  const res = await fetch(server.resources.mcp, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const payload = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      )
    : JSON.parse(text);
  return payload.result as { structuredContent: Record<string, any>; isError?: boolean; _meta?: Record<string, unknown> };
}

const segmentCount = async () => {
  const res = await client.callTool({ name: 'list_segments', arguments: { limit: 100 } });
  return (res.structuredContent as { segments: unknown[] }).segments.length;
};

describe('MCP Idempotency-Key', () => {
  it('the tools of idempotent declarations take idempotency_key; others do not', async () => {
    const tools = agentTools(server.services.operations);
    const withKey = tools
      .filter((t) => 'idempotency_key' in (t.inputSchema.properties as object))
      .map((t) => t.name)
      .sort();
    expect(withKey).toEqual(
      tools
        .filter((t) => t.op.idempotency)
        .map((t) => t.name)
        .sort(),
    );
    expect(withKey).toEqual(expect.arrayContaining(['create_delivery', 'match_records', 'start_file_match']));
    const listed = (await client.listTools()).tools.find((t) => t.name === 'start_file_match')!;
    expect(listed.inputSchema.properties).toHaveProperty('idempotency_key');
    expect((await client.listTools()).tools.find((t) => t.name === 'create_segment')!.inputSchema.properties).not.toHaveProperty(
      'idempotency_key',
    );
  });

  it('a retried call with the same key (argument) replays the first answer and creates nothing more; other arguments conflict', async () => {
    const before = await segmentCount();
    const args = { name: 'idempotent upload', file_format: 'csv', idempotency_key: 'mcp-key-1' };
    const first = await client.callTool({ name: 'start_file_match', arguments: args });
    expect(first.isError ?? false, JSON.stringify(first.structuredContent)).toBe(false);
    expect(first._meta).toMatchObject({ idempotent_replayed: false });
    const again = await client.callTool({ name: 'start_file_match', arguments: args });
    expect(again._meta).toMatchObject({ idempotent_replayed: true });
    const a = first.structuredContent as { segment_id: string; upload_url: string };
    const b = again.structuredContent as { segment_id: string; upload_url: string };
    expect(b.segment_id).toBe(a.segment_id);
    expect(b.upload_url).toEqual(expect.any(String));
    expect(await segmentCount()).toBe(before + 1);

    const conflict = await client.callTool({ name: 'start_file_match', arguments: { ...args, name: 'another upload' } });
    expect(conflict.isError).toBe(true);
    expect(conflict.structuredContent).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', next_step: expect.any(String) });
    const bad = await client.callTool({ name: 'start_file_match', arguments: { ...args, idempotency_key: 'has space' } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY' });
    expect(await segmentCount()).toBe(before + 1);

    // Without a key, each call does the work.
    await client.callTool({ name: 'start_file_match', arguments: { name: 'no key' } });
    await client.callTool({ name: 'start_file_match', arguments: { name: 'no key' } });
    expect(await segmentCount()).toBe(before + 3);
  });

  it('the Idempotency-Key header of a tools/call request works as the argument, and a REST retry with that key replays it', async () => {
    const before = await segmentCount();
    const first = await rawCall('start_file_match', { name: 'header key' }, { 'idempotency-key': 'mcp-header-1' });
    expect(first.isError ?? false, JSON.stringify(first.structuredContent)).toBe(false);
    const again = await rawCall('start_file_match', { name: 'header key' }, { 'idempotency-key': 'mcp-header-1' });
    expect(again._meta).toMatchObject({ idempotent_replayed: true });
    expect(again.structuredContent.segment_id).toBe(first.structuredContent.segment_id);
    const rest = await fetch(`${server.url}/v1/match/file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'mcp-header-1' },
      body: JSON.stringify({ name: 'header key' }),
    });
    expect(rest.status).toBe(201);
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(((await rest.json()) as { segment_id: string }).segment_id).toBe(first.structuredContent.segment_id);
    expect(await segmentCount()).toBe(before + 1);
  });

  it('a spend tool retried with its key charges once; the quote (no confirm) claims no key', async () => {
    const payer = await createTestOrg(server);
    const c = new Client({ name: 'idempotency-spend', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(server.resources.mcp), {
        requestInit: { headers: { authorization: `Bearer ${await payer.token(['discovery', 'creator'])}` } },
      }),
    );
    const ledger = async () =>
      (await (await testStores()).database.db.selectFrom('usage_ledger').select('id').where('org_id', '=', payer.orgId).execute()).length;
    const records = [
      { row_id: 'a', email: 'nobody-at-all@example.com' },
      { row_id: 'b', email: 'second@example.com' },
    ];
    const quote = await c.callTool({ name: 'match_records', arguments: { records, idempotency_key: 'spend-1' } });
    expect(quote.structuredContent).toMatchObject({ confirmation_required: true });
    expect(quote._meta?.idempotent_replayed).toBeUndefined();
    const ran = await c.callTool({ name: 'match_records', arguments: { records, confirm: true, idempotency_key: 'spend-1' } });
    expect(ran._meta).toMatchObject({ idempotent_replayed: false });
    expect(await ledger()).toBe(1);
    const again = await c.callTool({ name: 'match_records', arguments: { records, confirm: true, idempotency_key: 'spend-1' } });
    expect(again._meta).toMatchObject({ idempotent_replayed: true });
    expect(again.structuredContent).toEqual(ran.structuredContent);
    expect(await ledger()).toBe(1);
    await c.close();
  });
});
