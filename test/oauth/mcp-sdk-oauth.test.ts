/**
 * "Give the MCP client only the URL" (issue #31), with the official MCP TypeScript SDK 1.x OAuth client
 * (`@modelcontextprotocol/sdk`, `StreamableHTTPClientTransport` with an `OAuthClientProvider`): the first
 * request is refused with 401, the SDK discovers the protected resource and the authorization server,
 * registers itself dynamically with the resource's `scopes_supported`, and sends the person to the
 * authorization URL; the person signs in and consents in Debian's chromium (playwright-core); the SDK
 * redeems the code and calls a tool.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentServer } from '../agents/setup.ts';
import { launchChromium } from './chromium.ts';
import { orgWithOwner, type OAuthServer } from './setup.ts';

const REDIRECT = 'http://127.0.0.1:5000/cb';

/** An MCP host's OAuth state, kept in memory, as the SDK's OAuthClientProvider asks for it. */
class HostProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Host',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the official MCP TypeScript SDK 1.x, given only the URL', () => {
  let server: OAuthServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await agentServer();
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('goes from the 401 through dynamic registration, sign-in and consent in chromium to a tool call', async () => {
    const { owner } = await orgWithOwner(server);
    const host = new HostProvider();
    const first = new Client({ name: 'sdk-host', version: '1.0.0' });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(server.resources.mcp), { authProvider: host })),
    ).rejects.toBeInstanceOf(UnauthorizedError);

    // Registered with the scopes the tool resource advertises, and sent to the authorization endpoint with them.
    expect(host.client?.client_id).toEqual(expect.any(String));
    const prm = (await (
      await fetch(`${server.url}/.well-known/oauth-protected-resource${new URL(server.resources.mcp).pathname.replace(/\/$/, '')}`)
    ).json()) as { scopes_supported: string[] };
    const url = host.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${server.url}/v1/oauth/authorize`);
    expect(url.searchParams.get('scope')).toBe(prm.scopes_supported.join(' '));
    expect(url.searchParams.get('resource')).toBe(server.resources.mcp);
    expect(url.searchParams.get('client_id')).toBe(host.client!.client_id);

    const page = await browser.newPage();
    let callback: URL | null = null;
    // The host's redirect target is not served: catch the navigation to it instead.
    await page.route(`${REDIRECT}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the host' });
    });
    await page.goto(url.href);
    await page.fill('input[name=email]', owner.email);
    await page.fill('input[name=password]', owner.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('button[name=approve]');
    expect(await page.textContent('h1')).toContain('SDK Host');
    expect(await page.isChecked('#scope-discovery')).toBe(true);
    await page.click('button[name=approve]');
    await page.waitForURL(`${REDIRECT}**`);
    await page.close();

    const code = (callback as URL | null)?.searchParams.get('code');
    expect(code, String(callback)).toBeTruthy();
    const transport = new StreamableHTTPClientTransport(new URL(server.resources.mcp), { authProvider: host });
    await transport.finishAuth(code!);
    expect(host.saved?.access_token).toEqual(expect.any(String));
    expect(host.saved?.scope?.split(' ').sort()).toEqual(['discovery', 'email', 'openid']);

    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('count_persons');
      const result = await client.callTool({ name: 'count_persons', arguments: { filters: [{ field: 'state', op: '=', value: 'CA' }] } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { count: number }).count).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 180_000);
});
