/**
 * Device authorization (spec 3 "Device authorization codes", 4.1, 5.10, 5.11) for a device-only public
 * client registered dynamically, polled as oauth4webapi polls, approved by a person on the verification
 * page: interval, authorization_pending, slow_down (+5 s), access_denied, expired_token after 10
 * minutes, codes bound to client and resource.
 */
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { MINUTE, SECOND } from '../../src/lib/clock.ts';
import { discover, insecure, json, refresh, registerPublicClient, signInAndConsent, tokenError } from './flows.ts';
import { formOf, ScriptBrowser } from './script-browser.ts';
import { oauthServer, orgWithOwner, type OAuthServer, type Person } from './setup.ts';

const DEVICE_ONLY = {
  client_name: 'Terminal Agent',
  redirect_uris: undefined,
  response_types: [],
  grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
};

describe('OAuth device authorization grant', () => {
  let server: OAuthServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client & { client_id: string };
  let owner: Person;

  beforeAll(async () => {
    server = await oauthServer();
    as = await discover(server);
    client = await registerPublicClient(server, DEVICE_ONLY);
    ({ owner } = await orgWithOwner(server));
  });

  const start = async (resource = server.resources.a2a, forClient = client) =>
    oauth.processDeviceAuthorizationResponse(
      as,
      forClient,
      await oauth.deviceAuthorizationRequest(as, forClient, oauth.None(), { resource, scope: 'discovery' }, insecure),
    );
  const poll = async (deviceCode: string, forClient = client) =>
    oauth.processDeviceCodeResponse(
      as,
      forClient,
      await oauth.deviceCodeGrantRequest(as, forClient, oauth.None(), deviceCode, {
        additionalParameters: { resource: server.resources.a2a },
        ...insecure,
      }),
    );

  /** The person opens verification_uri_complete, confirms the code, signs in and answers consent. */
  async function approveOnVerificationPage(uri: string, person: Person, approve?: string[] | 'deny') {
    const browser = new ScriptBrowser();
    const autoPost = formOf((await browser.request(uri)).body); // verification_uri_complete posts the code itself
    const confirm = await browser.request(new URL(autoPost.action, server.url).href, { form: autoPost.fields });
    expect(confirm.body).toContain('Terminal Agent');
    const confirmForm = formOf(confirm.body);
    const next = await browser.request(new URL(confirmForm.action, server.url).href, { form: confirmForm.fields });
    return signInAndConsent(server, browser, next.location!, person, approve);
  }

  it('registers a device-only public client (no redirect URIs, empty response_types, auth method none)', () => {
    expect(client).toMatchObject({ grant_types: DEVICE_ONLY.grant_types, response_types: [], token_endpoint_auth_method: 'none' });
    expect(client.client_id).toMatch(/^dyn_/);
    expect(client.redirect_uris ?? []).toEqual([]);
  });

  it('announces interval 5, answers authorization_pending, slow_down when polled too fast (+5 s), then tokens for the A2A resource', async () => {
    const device = await start();
    expect(device.interval).toBe(5);
    expect(device.expires_in).toBe(600);
    expect(device.verification_uri).toBe(`${server.url}/v1/oauth/device`);
    expect(device.verification_uri_complete).toBe(`${server.url}/v1/oauth/device?user_code=${encodeURIComponent(device.user_code)}`);

    expect((await tokenError(poll(device.device_code))).error).toBe('authorization_pending');
    server.clock.advance(2 * SECOND);
    expect((await tokenError(poll(device.device_code))).error).toBe('slow_down'); // the interval is now 10 s
    server.clock.advance(6 * SECOND);
    expect((await tokenError(poll(device.device_code))).error).toBe('slow_down'); // 6 s < 10 s: now 15 s
    server.clock.advance(15 * SECOND);
    expect((await tokenError(poll(device.device_code))).error).toBe('authorization_pending');

    const done = await approveOnVerificationPage(device.verification_uri_complete!, owner);
    expect(done.body).toContain('Terminal Agent is connected');
    server.clock.advance(15 * SECOND);
    const tokens = await poll(device.device_code);
    expect(tokens.scope).toBe('discovery');
    const caller = await server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.a2a);
    expect(caller).toMatchObject({ via: 'oauth', userId: owner.userId, clientId: client.client_id, scopes: ['discovery'] });
    const rest = await fetch(`${server.url}/v1/auth/session`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await json(rest)).error).toBe('TOKEN_INVALID'); // bound to the A2A resource only

    const renewed = await refresh(server, as, client, tokens.refresh_token!, server.resources.a2a);
    await expect(server.services.oauth.verifyAccessToken(renewed.access_token, server.resources.a2a)).resolves.toMatchObject({
      via: 'oauth',
    });
    expect((await tokenError(poll(device.device_code))).error).toBe('invalid_grant'); // a device code is used once
  });

  it('stops with access_denied when the person denies, and expired_token after 10 minutes', async () => {
    const denied = await start();
    await approveOnVerificationPage(denied.verification_uri_complete!, owner, 'deny');
    expect((await tokenError(poll(denied.device_code))).error).toBe('access_denied');

    const late = await start();
    server.clock.advance(10 * MINUTE + SECOND);
    expect((await tokenError(poll(late.device_code))).error).toBe('expired_token');
  });

  it('accepts the MCP resource too, refuses the REST API resource, and binds codes to their client and resource', async () => {
    const mcp = await start(server.resources.mcp);
    expect(mcp.device_code).toBeTruthy();
    const rest = await oauth.deviceAuthorizationRequest(
      as,
      client,
      oauth.None(),
      { resource: server.resources.api, scope: 'discovery' },
      insecure,
    );
    expect(rest.status).toBe(400);
    expect((await json(rest)).error).toBe('invalid_target');
    const none = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), { scope: 'discovery' }, insecure);
    expect((await json(none)).error).toBe('invalid_target'); // a public client must name the resource

    const device = await start();
    const other = await registerPublicClient(server, { ...DEVICE_ONLY, client_name: 'Another Agent' });
    expect((await tokenError(poll(device.device_code, other))).error).toBe('invalid_grant');
    await approveOnVerificationPage(device.verification_uri_complete!, owner);
    server.clock.advance(10 * SECOND);
    const wrongResource = await oauth.deviceCodeGrantRequest(as, client, oauth.None(), device.device_code, {
      additionalParameters: { resource: server.resources.mcp },
      ...insecure,
    });
    expect((await json(wrongResource)).error).toBe('invalid_target');
  });

  it('refuses a dynamic registration that asks for a client secret (registration is for public clients)', async () => {
    const res = await fetch(`${server.url}/v1/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Secretive',
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: 'invalid_client_metadata' });
  });
});
