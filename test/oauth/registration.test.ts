/**
 * Dynamic client registration (spec 5.11, RFC 7591) of what MCP clients send (issue #31): every scope the
 * authorization server and protected resource metadata advertise registers, an unknown one is refused;
 * plain-HTTP redirect URIs register only on loopback (OAuth 2.1, RFC 8252 sections 7.3 and 8.3), and a
 * client that reaches the authorization endpoint otherwise (a client ID metadata document) is refused there.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { json } from './flows.ts';
import { oauthServer, type OAuthServer } from './setup.ts';

let server: OAuthServer;
beforeAll(async () => {
  server = await oauthServer();
}, 120_000);

/** What the official MCP TypeScript SDK 1.x sends to the registration endpoint. */
async function register(metadata: Record<string, unknown>) {
  const res = await fetch(`${server.url}/v1/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'S',
      redirect_uris: ['http://127.0.0.1:5000/cb'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  return { status: res.status, body: await json(res) };
}

describe('dynamic client registration: scopes', () => {
  it('registers every scope set the metadata advertises, as the MCP SDK sends them', async () => {
    const as = await json(await fetch(`${server.url}/.well-known/oauth-authorization-server`));
    const sets = [
      ['discovery'],
      ['discovery', 'creator'],
      ['discovery', 'openid', 'email'],
      ['account-read'],
      as.scopes_supported as string[],
    ];
    for (const kind of ['api', 'mcp', 'a2a'] as const) {
      const resource = new URL(server.resources[kind]);
      const prm = await json(await fetch(`${resource.origin}/.well-known/oauth-protected-resource${resource.pathname.replace(/\/$/, '')}`));
      sets.push(prm.scopes_supported as string[]);
    }
    for (const scopes of sets) {
      const res = await register({ scope: scopes.join(' ') });
      expect(res.status, `${scopes.join(' ')}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.client_id).toEqual(expect.any(String));
    }
  });

  it('refuses a scope the service does not advertise (invalid_client_metadata)', async () => {
    for (const scope of ['discovery admin', 'account', 'offline_access discovery']) {
      const res = await register({ scope });
      expect(res.status, scope).toBe(400);
      expect(res.body.error, scope).toBe('invalid_client_metadata');
      expect(res.body.error_description, scope).toMatch(/scope/);
      expect(res.body.client_id).toBeUndefined();
    }
  });
});

describe('dynamic client registration: redirect URIs', () => {
  it('registers http only on loopback hosts (127.0.0.0/8, [::1], localhost), and https anywhere', async () => {
    for (const uri of [
      'http://127.0.0.1:5000/cb',
      'http://127.5.6.7/cb',
      'http://[::1]:8080/cb',
      'http://localhost:3000/callback',
      'https://app.example/cb',
    ]) {
      // Native clients (any port) take the loopback literals of RFC 8252 section 7.3 only: 127.0.0.1, [::1], localhost.
      for (const applicationType of uri.startsWith('https') || uri.includes('127.5.6.7') ? ['web'] : ['web', 'native']) {
        const res = await register({ redirect_uris: [uri], application_type: applicationType });
        expect(res.status, `${uri} (${applicationType}): ${JSON.stringify(res.body)}`).toBe(201);
      }
    }
  });

  it('refuses http on any other host with invalid_redirect_uri, whatever the application type', async () => {
    const refused = [
      'http://evil.example/cb',
      'http://localhost.evil.example/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://10.0.0.1/cb',
      'http://[::ffff:127.0.0.1]/cb',
      'http://0.0.0.0:5000/cb',
    ];
    for (const uri of refused) {
      for (const applicationType of [undefined, 'web', 'native']) {
        const res = await register({
          redirect_uris: ['http://127.0.0.1:5000/cb', uri],
          ...(applicationType ? { application_type: applicationType } : {}),
        });
        expect(res.status, `${uri} (${applicationType})`).toBe(400);
        expect(res.body.error, `${uri} (${applicationType})`).toBe('invalid_redirect_uri');
        expect(res.body.error_description).toContain('loopback');
        expect(res.body.client_id).toBeUndefined();
      }
    }
  });

  it('refuses at the authorization endpoint a client metadata document with a plain-HTTP redirect URI on a public host, never redirecting to it', async () => {
    const path = '/clients/plain-http.json';
    const clientId = `${server.documents.origin}${path}`;
    server.documents.serve(path, {
      client_id: clientId,
      client_name: 'Plain HTTP',
      redirect_uris: ['http://evil.example/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const res = await fetch(
      `${server.url}/v1/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: 'http://evil.example/cb',
        response_type: 'code',
        scope: 'discovery',
        resource: server.resources.mcp,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 's',
      })}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toContain('invalid_redirect_uri');
    expect(page).toContain('loopback');
  });
});
