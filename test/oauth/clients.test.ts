/**
 * Clients of spec 5.6 and 5.11: client ID metadata documents (HTTPS URL client ids, served here over
 * HTTPS on loopback with a generated certificate, redirect URIs checked against the document, portless
 * loopback redirects on any port, cached by HTTP caching headers) and pre-registered confidential
 * partners (client_secret_basic; the REST API resource when they omit `resource`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, bearer, discover, json, redeem, tokenError } from './flows.ts';
import { formOf, ScriptBrowser } from './script-browser.ts';
import { oauthServer, orgWithOwner, type OAuthServer, type Person } from './setup.ts';

describe('OAuth clients', () => {
  let server: OAuthServer;
  let as: oauth.AuthorizationServer;
  let owner: Person;

  beforeAll(async () => {
    server = await oauthServer();
    as = await discover(server);
    ({ owner } = await orgWithOwner(server));
  });

  it('accepts a client metadata document: its name on the consent page, its redirect URI on any loopback port, cached per Cache-Control', async () => {
    const path = '/clients/tool-agent.json';
    const clientId = `${server.documents.origin}${path}`;
    server.documents.serve(
      path,
      {
        client_id: clientId,
        client_name: 'Tool Agent',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      { 'cache-control': 'max-age=600' },
    );
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const redirectUri = 'http://127.0.0.1:53682/callback'; // an ephemeral port (RFC 8252)
    const auth = await authorize(server, owner, { client, scope: 'discovery', redirectUri, approve: undefined });
    expect(auth.callback.origin).toBe('http://127.0.0.1:53682');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth, { redirectUri }));
    expect((await server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp)).clientId).toBe(clientId);

    const again = await authorize(server, owner, {
      client,
      scope: 'discovery creator',
      redirectUri: 'http://127.0.0.1:40001/callback',
      approve: ['discovery'],
    });
    expect(again.callback.searchParams.get('code')).toBeTruthy();
    expect(server.documents.fetches(path)).toBe(1); // the second authorization read the cached document

    // The consent page names the client and where its document lives.
    const url = new URL(`${server.url}/v1/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'discovery',
      resource: server.resources.mcp,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const browser = new ScriptBrowser();
    const login = await browser.follow(url.href, server.url);
    const form = formOf(login.body);
    const consentPage = (
      await browser.follow(new URL(form.action, server.url).href, server.url, {
        form: { ...form.fields, email: owner.email, password: owner.password },
      })
    ).body;
    expect(consentPage).toContain('Tool Agent');
    expect(consentPage).toContain(`metadata document at ${server.documents.origin}`);
    expect(consentPage).toContain(server.resources.mcp);
  });

  it('refuses a redirect URI the document does not list, and a document whose client_id is not its URL', async () => {
    const path = '/clients/strict.json';
    const clientId = `${server.documents.origin}${path}`;
    server.documents.serve(path, {
      client_id: clientId,
      client_name: 'Strict',
      redirect_uris: ['https://app.example/callback'],
      token_endpoint_auth_method: 'none',
    });
    const res = await fetch(
      `${server.url}/v1/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: 'https://evil.example/callback',
        response_type: 'code',
        scope: 'discovery',
        resource: server.resources.mcp,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400); // shown to the person, never redirected to an unlisted URI
    expect(await res.text()).toContain('redirect_uri did not match any of the client');

    const liar = '/clients/liar.json';
    server.documents.serve(liar, {
      client_id: 'https://someone-else.example/client.json',
      client_name: 'Liar',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const refused = await fetch(
      `${server.url}/v1/oauth/authorize?${new URLSearchParams({
        client_id: `${server.documents.origin}${liar}`,
        redirect_uri: 'http://127.0.0.1/callback',
        response_type: 'code',
        scope: 'discovery',
        resource: server.resources.mcp,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );
    expect(refused.status).toBe(400);
  });

  it('registers a confidential partner through the CLI (ads oauth-clients create), printing its secret once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-oauth-cli-'));
    const env = { ...process.env, DATA_DIR: dataDir, GRAPH_PERSONS: '0', PUBLIC_URL: server.url };
    const run = promisify(execFile);
    const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
    const cli = async (...args: string[]) => JSON.parse((await run(tsx, ['src/main.ts', ...args], { env })).stdout);
    const created = await cli('oauth-clients', 'create', '--name', 'Partner CRM', '--redirect-uri', 'https://crm.example/oauth/callback');
    expect(created).toMatchObject({
      client_name: 'Partner CRM',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['https://crm.example/oauth/callback'],
    });
    expect(created.client_id).toMatch(/^partner_/);
    expect(created.client_secret).toMatch(/^[A-Za-z0-9]{48}$/);
  }, 90_000);

  it('runs a confidential partner without a resource parameter: the token is for the REST API', async () => {
    const partner = await server.services.oauth.registerPartnerClient({
      name: 'Partner CRM',
      redirectUris: ['https://crm.example/oauth/callback'],
    });
    const client: oauth.Client = { client_id: partner.client_id };
    const redirectUri = 'https://crm.example/oauth/callback';
    const auth = await authorize(server, owner, { client, scope: 'discovery', resource: null, redirectUri });
    const wrongSecret = await tokenError(
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await redeem(server, as, client, auth, { resource: null, redirectUri, clientAuth: oauth.ClientSecretBasic('not-the-secret') }),
      ),
    );
    expect(wrongSecret.error).toBe('invalid_client');
    const again = await authorize(server, owner, { client, scope: 'discovery', resource: null, redirectUri });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await redeem(server, as, client, again, { resource: null, redirectUri, clientAuth: oauth.ClientSecretBasic(partner.client_secret!) }),
    );
    const session = await fetch(`${server.url}/v1/auth/session`, { headers: bearer(tokens.access_token) });
    expect(await json(session)).toMatchObject({ via: 'oauth', user_id: owner.userId, scopes: ['discovery'] });
    // The secret is not stored with the client: it lives in the secret store, under the client's name.
    const stored = await server.services.oauth.secrets.read(`client-secret:${partner.client_id}`);
    expect(stored).toBe(partner.client_secret);
  });
});
