/**
 * The tool-protocol endpoint (spec 4.10 / 5.2 / 5.8; ADR 013, 034) through the official MCP client SDK
 * against the service listening on a real port: both protocol eras, tools derived from the
 * declarations and listed per scope, calls, section 7 errors, scope refusal with a step-up challenge,
 * organization isolation, Origin checks, and OAuth tokens bound to {mcp_url}.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTools } from '../../src/http/agent-tools.ts';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { authorize, discover, json, redeem, registerPublicClient } from '../oauth/flows.ts';
import { addPerson, type OAuthServer } from '../oauth/setup.ts';
import { agentServer } from './setup.ts';

type Era = 'legacy' | 'auto';

let server: OAuthServer;
let org: TestOrg;
let other: TestOrg;
const clients: Client[] = [];

async function connect(token: string, era: Era = 'auto'): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { versionNegotiation: { mode: era } });
  const transport = new StreamableHTTPClientTransport(new URL(server.resources.mcp), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const rpc = (body: object, headers: Record<string, string> = {}) =>
  fetch(server.resources.mcp, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(body),
  });
const CALL_COUNT = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'count_persons', arguments: { filters: [{ field: 'state', op: '=', value: 'CA' }] } },
};

beforeAll(async () => {
  server = await agentServer();
  org = await createTestOrg(server);
  other = await createTestOrg(server);
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

describe('MCP endpoint: tools from the declarations', () => {
  for (const era of ['auto', 'legacy'] as const) {
    it(`lists every agent declaration the token may call (${era} era), with its schema and annotations`, async () => {
      const client = await connect(await org.token(['discovery', 'creator', 'account']), era);
      const { tools } = await client.listTools();
      const expected = agentTools(server.services.operations);
      expect(tools.map((t) => t.name).sort()).toEqual(expected.map((t) => t.name).sort());
      const count = tools.find((t) => t.name === 'count_persons')!;
      expect(count.inputSchema).toMatchObject({
        type: 'object',
        properties: { filters: { description: expect.stringContaining('filter conditions') }, group_by: {} },
      });
      // The schema is the declaration's body schema, property for property.
      expect(count.inputSchema.properties).toEqual(
        JSON.parse(
          JSON.stringify(
            (server.services.operations.find((o) => o.id === 'countPersons')!.input.body as { properties: object }).properties,
          ),
        ),
      );
      expect(count.annotations).toMatchObject({ readOnlyHint: true });
      const getSegment = tools.find((t) => t.name === 'get_segment')!;
      expect(getSegment.inputSchema).toMatchObject({ required: ['id'], properties: { id: { type: 'string' } } });
      const match = tools.find((t) => t.name === 'match_records')!;
      expect(match.annotations).toMatchObject({ readOnlyHint: false });
      expect(match.inputSchema.properties).toHaveProperty('confirm');
      expect(match.description).toContain('Cost');
    });
  }

  it('a discovery-only token sees only the discovery tools', async () => {
    const client = await connect(await org.token(['discovery']));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('count_persons');
    expect(names).toContain('get_segment');
    expect(names).not.toContain('create_segment');
    expect(names).not.toContain('match_records');
  });

  it('account reads are tools for account (and account-read) only: usage, credits, contract, auto-recharge', async () => {
    const accountTools = ['get_account_usage', 'get_credits', 'get_contract', 'get_auto_recharge'];
    const creator = (await (await connect(await org.token(['discovery', 'creator']))).listTools()).tools.map((t) => t.name);
    for (const name of accountTools) expect(creator).not.toContain(name);
    const client = await connect(await org.token(['account']));
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of accountTools) expect(names).toContain(name);
    const usage = await client.callTool({ name: 'get_account_usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    expect(usage.structuredContent).toMatchObject({ usage: [], total_cents: 0, billing_account_id: expect.stringMatching(/^ba_/) });
    const contract = await client.callTool({ name: 'get_contract', arguments: {} });
    expect(contract.structuredContent).toMatchObject({ terms: { tier: expect.any(String) } });
  });

  it('whoami answers the organization, user and scopes of the token', async () => {
    const client = await connect(await org.token(['discovery']));
    const res = await client.callTool({ name: 'whoami', arguments: {} });
    expect(res.structuredContent).toMatchObject({ org_id: org.orgId, user_id: org.ownerId, scopes: ['discovery'], via: 'api_key' });
  });

  it('count_persons answers what REST answers for the same filters', async () => {
    const token = await org.token(['discovery']);
    const client = await connect(token);
    const filters = [{ field: 'state', op: '=', value: 'CA' }];
    const res = await client.callTool({ name: 'count_persons', arguments: { filters, group_by: 'gender' } });
    expect(res.isError ?? false).toBe(false);
    const rest = await json(
      await fetch(`${server.url}/v1/discovery/count`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filters, group_by: 'gender' }),
      }),
    );
    const structured = res.structuredContent as Record<string, unknown>;
    expect(structured.count).toBe(rest.count);
    expect(structured.groups).toEqual(rest.groups);
    expect(JSON.parse((res.content as { text: string }[])[0]!.text)).toEqual(structured);
  });

  it('create_segment creates a segment the organization reads over REST; another organization does not find it', async () => {
    const client = await connect(await org.token(['discovery', 'creator']));
    const res = await client.callTool({
      name: 'create_segment',
      arguments: { name: 'MCP CA', filters: [{ field: 'state', op: '=', value: 'CA' }] },
    });
    expect(res.isError ?? false, JSON.stringify(res.structuredContent)).toBe(false);
    const segment = res.structuredContent as { segment_id: string; name: string };
    expect(segment.segment_id).toMatch(/^seg_/);
    const rest = await fetch(`${server.url}/v1/segments/${segment.segment_id}`, {
      headers: { authorization: `Bearer ${await org.token(['discovery'])}` },
    });
    expect(rest.status).toBe(200);
    expect((await json(rest)).name).toBe('MCP CA');

    const outsider = await connect(await other.token(['discovery']));
    const miss = await outsider.callTool({ name: 'get_segment', arguments: { id: segment.segment_id } });
    expect(miss.isError).toBe(true);
    expect(miss.structuredContent).toMatchObject({
      code: 'SEGMENT_NOT_FOUND',
      message: expect.any(String),
      next_step: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('bad arguments are a tool error with the section 7 envelope and its issues; nothing is created', async () => {
    const client = await connect(await org.token(['discovery', 'creator']));
    const before = (
      await json(
        await fetch(`${server.url}/v1/segments?limit=100`, { headers: { authorization: `Bearer ${await org.token(['discovery'])}` } }),
      )
    ).segments.length;
    const bad = { name: 'x', filters: [{ field: 'state', op: '=', value: 'CA' }], extra: 1 };
    const res = await client.callTool({ name: 'create_segment', arguments: bad });
    expect(res.isError).toBe(true);
    const rest = await json(
      await fetch(`${server.url}/v1/segments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await org.token(['creator'])}`, 'content-type': 'application/json' },
        body: JSON.stringify(bad),
      }),
    );
    const issue = { path: '$.extra', code: 'INVALID_VALUE', message: 'unknown property "extra"', suggestions: [] };
    expect(res.structuredContent).toMatchObject({
      code: 'INVALID_REQUEST',
      message: rest.message,
      next_step: rest.next_step,
      issues: [issue],
    });
    expect(rest.issues).toEqual([issue]);
    const after = (
      await json(
        await fetch(`${server.url}/v1/segments?limit=100`, { headers: { authorization: `Bearer ${await org.token(['discovery'])}` } }),
      )
    ).segments.length;
    expect(after).toBe(before);
  });

  it('a spend tool without confirm answers its cost and charges nothing; with confirm it runs', async () => {
    const client = await connect(await org.token(['discovery', 'creator']));
    const records = [
      { row_id: 'a', email: 'nobody-at-all@example.com' },
      { row_id: 'b', email: 'second@example.com' },
    ];
    const ledger = async () =>
      (await (await testStores()).database.db.selectFrom('usage_ledger').select('id').where('org_id', '=', org.orgId).execute()).length;
    const quote = await client.callTool({ name: 'match_records', arguments: { records } });
    expect(quote.isError ?? false).toBe(false);
    // enterprise tier: 1 cent per matched record (src/config/billing.ts), two records at most
    expect(quote.structuredContent).toEqual({
      confirmation_required: true,
      tool: 'match_records',
      records: 2,
      unit_price_usd: 0.01,
      max_charge_usd: 0.02,
      pricing: 'matched records x unit_price_usd; unmatched records are free',
      next_step: 'Call again with confirm: true to run it.',
    });
    expect(await ledger()).toBe(0);
    const ran = await client.callTool({ name: 'match_records', arguments: { records, confirm: true } });
    expect(await ledger()).toBe(1);
    expect(ran.isError ?? false, JSON.stringify(ran.structuredContent)).toBe(false);
    expect(ran.structuredContent).toMatchObject({ record_count: 2 });
    expect((ran.structuredContent as { records: unknown[] }).records).toHaveLength(2);
  });
});

describe('MCP endpoint: refusals', () => {
  it('no bearer: 401 naming the resource metadata, which names the authorization server', async () => {
    const res = await rpc(CALL_COUNT);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(await res.json()).toMatchObject({ code: 'TOKEN_INVALID' });
    const metadata = await json(await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`));
    expect(metadata).toMatchObject({ resource: server.resources.mcp, authorization_servers: [server.url] });
  });

  it('a tools/call outside the token scopes: 403 insufficient_scope with the scope to step up to, and nothing created', async () => {
    const token = await org.token(['discovery']);
    const res = await rpc(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'create_segment', arguments: { name: 'nope', filters: [{ field: 'state', op: '=', value: 'CA' }] } },
      },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="creator"');
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    const body = await res.json();
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32011, data: { code: 'SCOPE_REQUIRED', required_scope: 'creator' } },
    });
  });

  it('an Origin of another site is refused before anything runs; the service origin is accepted', async () => {
    const token = await org.token(['discovery']);
    const bad = await rpc(CALL_COUNT, { authorization: `Bearer ${token}`, origin: 'http://evil.example' });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toMatchObject({ code: 'FORBIDDEN' });
    const good = await rpc(CALL_COUNT, { authorization: `Bearer ${token}`, origin: server.url });
    expect(good.status).toBe(200);
  });

  it('a token for the REST API resource is refused (401 invalid_token); an API-key bearer works', async () => {
    const person = await addPerson(server, org, 'owner');
    const as = await discover(server);
    const client = await registerPublicClient(server);
    const api = await authorize(server, person, { client, scope: 'discovery', resource: server.resources.api });
    const apiTokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await redeem(server, as, client, api, { resource: server.resources.api }),
    );
    const res = await rpc(CALL_COUNT, { authorization: `Bearer ${apiTokens.access_token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('MCP endpoint: OAuth', () => {
  it('a token from a full authorization code flow for {mcp_url} drives the MCP client; tools follow its scopes', async () => {
    const person = await addPerson(server, org, 'owner');
    const as = await discover(server);
    const client = await registerPublicClient(server);
    const auth = await authorize(server, person, { client, scope: 'discovery', approve: ['discovery'] });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth));
    expect(tokens.scope).toBe('discovery');
    const mcp = await connect(tokens.access_token);
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    expect(names).toContain('count_persons');
    expect(names).not.toContain('create_segment');
    const res = await mcp.callTool({ name: 'count_persons', arguments: { filters: [{ field: 'state', op: '=', value: 'CA' }] } });
    expect(res.isError ?? false).toBe(false);
    expect(typeof (res.structuredContent as { count: unknown }).count).toBe('number');
    // The same token is not a REST API token.
    expect((await fetch(`${server.url}/v1/auth/session`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      401,
    );
  });
});
