/**
 * Authorization code with PKCE for a public agent client, as oauth4webapi runs it (spec 4.1, 5.5-5.9):
 * discovery, registration, consent, `iss` and `state`, tokens bound to the tool resource, RS256
 * id_token, userinfo, refresh rotation, revocation, and the refusals of section 5.
 */
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { MINUTE, SECOND } from '../../src/lib/clock.ts';
import { authorize, bearer, discover, insecure, json, redeem, refresh, registerPublicClient, tokenError } from './flows.ts';
import { addPerson, oauthServer, orgWithOwner, type OAuthServer, type Person } from './setup.ts';

describe('OAuth authorization code flow (public agent client)', () => {
  let server: OAuthServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client & { client_id: string };
  let owner: Person;

  beforeAll(async () => {
    server = await oauthServer();
    as = await discover(server);
    client = await registerPublicClient(server);
    ({ owner } = await orgWithOwner(server));
  });

  it('publishes authorization server metadata at both well-known paths, with PKCE S256, iss and metadata documents', async () => {
    const oidc = await discover(server, 'oidc');
    for (const meta of [as, oidc]) {
      expect(meta.issuer).toBe(server.url);
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.authorization_response_iss_parameter_supported).toBe(true);
      expect(meta.client_id_metadata_document_supported).toBe(true);
      expect(meta.authorization_endpoint).toBe(`${server.url}/v1/oauth/authorize`);
      expect(meta.token_endpoint).toBe(`${server.url}/v1/oauth/token`);
      expect(meta.device_authorization_endpoint).toBe(`${server.url}/v1/oauth/device_authorization`);
      expect(meta.registration_endpoint).toBe(`${server.url}/v1/oauth/register`);
      expect(meta.revocation_endpoint).toBe(`${server.url}/v1/oauth/revoke`);
      expect(meta.userinfo_endpoint).toBe(`${server.url}/v1/oauth/userinfo`);
      expect(meta.jwks_uri).toBe(`${server.url}/v1/oauth/jwks`);
      expect(meta.scopes_supported).toEqual(['discovery', 'creator', 'account-read', 'openid', 'email']);
    }
    const jwks = await json(await fetch(`${server.url}/v1/oauth/jwks`));
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0].d).toBeUndefined(); // never the private half
  });

  it('serves RFC 9728 metadata for the three resources and names it in the 401 challenge of the REST API', async () => {
    for (const [path, resource] of [
      ['/v1', server.resources.api],
      ['/mcp', server.resources.mcp],
      ['/agent', server.resources.a2a],
    ] as const) {
      const doc = await json(await fetch(`${server.url}/.well-known/oauth-protected-resource${path}`));
      expect(doc).toMatchObject({ resource, authorization_servers: [server.url], bearer_methods_supported: ['header'] });
    }
    const res = await fetch(`${server.url}/v1/auth/session`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/v1"`);
  });

  it('signs in, asks consent, returns code, state and iss, and issues tokens bound to the tool resource with an RS256 id_token', async () => {
    const auth = await authorize(server, owner, {
      client,
      scope: 'openid email discovery creator',
      approve: ['openid', 'email', 'discovery'],
    });
    expect(auth.callback.origin + auth.callback.pathname).toBe('http://127.0.0.1/callback');
    expect(auth.callback.searchParams.get('iss')).toBe(server.url);
    expect(auth.callback.searchParams.get('state')).toBe(auth.state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth), {
      requireIdToken: true,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(1800);
    expect(tokens.scope?.split(' ').sort()).toEqual(['discovery', 'email', 'openid']); // creator was not ticked
    expect(tokens.refresh_token).toBeTruthy();
    const idToken = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(idToken.sub).toBe(owner.userId);
    expect(JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()).alg).toBe('RS256');

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      owner.userId,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
    );
    expect(info).toEqual({ sub: owner.userId, email: owner.email, email_verified: true });

    const session = await server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp);
    expect(session).toMatchObject({ via: 'oauth', clientId: client.client_id, userId: owner.userId, resource: server.resources.mcp });
    expect(session.scopes.sort()).toEqual(['discovery', 'email', 'openid']);
  });

  it('accepts a token for the REST API on /v1 with the same scope checks, and refuses a tool-resource token there (TOKEN_INVALID)', async () => {
    const { owner: person, org } = await orgWithOwner(server);
    const api = await authorize(server, person, { client, scope: 'discovery', resource: server.resources.api });
    const apiTokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await redeem(server, as, client, api, { resource: server.resources.api }),
    );
    const session = await fetch(`${server.url}/v1/auth/session`, { headers: bearer(apiTokens.access_token) });
    expect(session.status).toBe(200);
    expect(await json(session)).toMatchObject({
      org_id: org.orgId,
      user_id: person.userId,
      key_id: null,
      via: 'oauth',
      scopes: ['discovery'],
    });
    expect(session.headers.get('x-ratelimit-limit')).toBe('12000'); // rate limits apply per organization as for API keys

    const creatorOnly = await fetch(`${server.url}/v1/webhook-subscriptions`, {
      method: 'POST',
      headers: { ...bearer(apiTokens.access_token), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(creatorOnly.status).toBe(403);
    expect((await json(creatorOnly)).error).toBe('SCOPE_REQUIRED');
    expect(creatorOnly.headers.get('www-authenticate')).toContain('error="insufficient_scope", resource_metadata=');

    const mcp = await authorize(server, person, { client, scope: 'discovery' });
    const mcpTokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, mcp));
    const refused = await fetch(`${server.url}/v1/auth/session`, { headers: bearer(mcpTokens.access_token) });
    expect(refused.status).toBe(401);
    expect((await json(refused)).error).toBe('TOKEN_INVALID');
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", resource_metadata=".*\/\.well-known\/oauth-protected-resource\/v1", error_description=/,
    );
    await expect(server.services.oauth.verifyAccessToken(apiTokens.access_token, server.resources.a2a)).rejects.toMatchObject({
      code: 'TOKEN_INVALID',
    });
  });

  it('rotates refresh tokens; a failed refresh (trailing-slash resource) never rotates; reuse of a consumed one revokes the grant', async () => {
    const auth = await authorize(server, owner, { client, scope: 'discovery' });
    const first = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth));

    const slash = await tokenError(refresh(server, as, client, first.refresh_token!, `${server.resources.mcp}/`));
    expect(slash.error).toBe('invalid_target');
    const second = await refresh(server, as, client, first.refresh_token!); // still valid: the failure did not consume it
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    const third = await refresh(server, as, client, second.refresh_token!, null); // an omitted resource means the granted one
    await expect(server.services.oauth.verifyAccessToken(third.access_token, server.resources.mcp)).resolves.toMatchObject({
      via: 'oauth',
    });

    expect((await tokenError(refresh(server, as, client, first.refresh_token!))).error).toBe('invalid_grant');
    // The grant is gone: the newest refresh token and the access tokens stop working too.
    expect((await tokenError(refresh(server, as, client, third.refresh_token!))).error).toBe('invalid_grant');
    await expect(server.services.oauth.verifyAccessToken(third.access_token, server.resources.mcp)).rejects.toMatchObject({
      code: 'TOKEN_INVALID',
    });
  });

  it('refuses a reused code (and revokes what it issued), an expired code, and a code redeemed for another resource', async () => {
    const auth = await authorize(server, owner, { client, scope: 'discovery' });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth));
    const reused = await tokenError(oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth)));
    expect(reused.error).toBe('invalid_grant');
    await expect(server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp)).rejects.toMatchObject({
      code: 'TOKEN_INVALID',
    });

    const late = await authorize(server, owner, { client, scope: 'discovery' });
    server.clock.advance(61 * SECOND); // codes live 60 seconds (spec 5.7)
    const expired = await tokenError(oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, late)));
    expect(expired.error).toBe('invalid_grant');

    const other = await authorize(server, owner, { client, scope: 'discovery' });
    const wrong = await tokenError(
      oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, other, { resource: server.resources.a2a })),
    );
    expect(wrong.error).toBe('invalid_target');
  });

  it('expires access tokens after 30 minutes on the service clock (TOKEN_EXPIRED), and revocation ends them at once', async () => {
    const auth = await authorize(server, owner, { client, scope: 'discovery', resource: server.resources.api });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await redeem(server, as, client, auth, { resource: server.resources.api }),
    );
    server.clock.advance(29 * MINUTE);
    expect((await fetch(`${server.url}/v1/auth/session`, { headers: bearer(tokens.access_token) })).status).toBe(200);
    server.clock.advance(61 * SECOND);
    const expired = await fetch(`${server.url}/v1/auth/session`, { headers: bearer(tokens.access_token) });
    expect(expired.status).toBe(401);
    expect((await json(expired)).error).toBe('TOKEN_EXPIRED');

    const renewed = await refresh(server, as, client, tokens.refresh_token!, server.resources.api);
    expect((await fetch(`${server.url}/v1/auth/session`, { headers: bearer(renewed.access_token) })).status).toBe(200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), renewed.access_token, insecure));
    const revoked = await fetch(`${server.url}/v1/auth/session`, { headers: bearer(renewed.access_token) });
    // Unknown now: the next step names both ways to a new token (an API-key exchange's or OAuth's).
    expect(await json(revoked)).toMatchObject({
      error: 'TOKEN_INVALID',
      message: 'The access token is unknown or has been revoked.',
      next_step: expect.stringMatching(/POST \/v1\/auth\/token.*GET \/v1\/oauth\/authorize/),
    });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), renewed.refresh_token!, insecure));
    expect((await tokenError(refresh(server, as, client, renewed.refresh_token!, server.resources.api))).error).toBe('invalid_grant');
  });

  it('refuses authorization requests without PKCE, with an unknown resource, without a resource (public client), or with openid off the tool resource', async () => {
    const cases = [
      { options: { codeChallenge: null }, error: 'invalid_request' },
      { options: { resource: 'https://elsewhere.example/api' }, error: 'invalid_target' },
      { options: { resource: null }, error: 'invalid_target' },
      { options: { resource: server.resources.a2a, scope: 'openid discovery' }, error: 'invalid_scope' },
      { options: { extra: { code_challenge_method: 'plain' } }, error: 'invalid_request' },
    ];
    for (const { options, error } of cases) {
      const auth = await authorize(server, owner, { client, scope: 'discovery', ...options });
      expect(auth.callback.searchParams.get('error'), JSON.stringify(options)).toBe(error);
      expect(auth.callback.searchParams.get('iss')).toBe(server.url); // RFC 9207 on errors too
    }
  });

  it('offers account-read only to owners and admins, and a denial returns access_denied', async () => {
    const { org } = await orgWithOwner(server);
    const member = await addPerson(server, org, 'member');
    const denied = await authorize(server, member, { client, scope: 'discovery', approve: 'deny' });
    expect(denied.callback.searchParams.get('error')).toBe('access_denied');
    const memberAuth = await authorize(server, member, { client, scope: 'discovery account-read', approve: ['discovery', 'account-read'] });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, memberAuth));
    expect(tokens.scope).toBe('discovery'); // the member could not grant account-read
  });

  it('sweeps records a day past their expiry (the hourly oauth.sweep job), keeping live ones', async () => {
    const auth = await authorize(server, owner, { client, scope: 'discovery' });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth));
    const sweep = server.services.jobDefinitions().find((j) => j.name === 'oauth.sweep')!;
    await sweep.handle({}, { id: 'test', retryCount: 0 });
    await expect(server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp)).resolves.toMatchObject({
      via: 'oauth',
    });
    server.clock.advance(25 * 60 * MINUTE); // the access token is now a day and more past its 30 minutes
    await expect(server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp)).rejects.toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    const { deleted } = (await sweep.handle({}, { id: 'test', retryCount: 0 })) as { deleted: number };
    expect(deleted).toBeGreaterThan(0);
    await expect(server.services.oauth.verifyAccessToken(tokens.access_token, server.resources.mcp)).rejects.toMatchObject({
      code: 'TOKEN_INVALID',
    });
    expect((await refresh(server, as, client, tokens.refresh_token!)).access_token).toBeTruthy(); // the 90-day refresh token stays
  });
});
