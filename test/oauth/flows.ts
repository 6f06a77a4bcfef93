/** A real OAuth client (oauth4webapi) driving the service, with the scripted browser for the person. */
import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import type { OAuthServer, Person } from './setup.ts';
import { formOf, ScriptBrowser } from './script-browser.ts';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(server: OAuthServer, algorithm: 'oauth2' | 'oidc' = 'oauth2'): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(server.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm, ...insecure }));
}

/** Dynamic client registration (RFC 7591) of a public client. */
export async function registerPublicClient(
  server: OAuthServer,
  metadata: Record<string, unknown> = {},
): Promise<oauth.Client & { client_id: string }> {
  const res = await fetch(`${server.url}/v1/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Agent',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as oauth.Client & { client_id: string };
}

export interface AuthorizeOptions {
  client: oauth.Client;
  redirectUri?: string;
  resource?: string | null;
  scope: string;
  /** Scopes the person ticks on the consent page (default: what the page preselects). */
  approve?: string[] | 'deny';
  codeChallenge?: string | null;
  browser?: ScriptBrowser;
  extra?: Record<string, string>;
}

export interface Authorized {
  /** The redirect back to the client (code, state, iss, or error). */
  callback: URL;
  state: string;
  verifier: string;
  browser: ScriptBrowser;
}

/** Consent form submission: the ticked scopes (or preselected ones) and a button. */
export function consentForm(body: string, approve: string[] | 'deny' | undefined): Record<string, string | string[]> {
  const { fields } = formOf(body);
  if (approve === 'deny') return { ...fields, deny: 'deny' };
  const preselected = [...body.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]!);
  return { ...fields, scope: approve ?? preselected, approve: 'approve' };
}

/** Signs the person in and answers the consent page, starting from a page of the interaction. */
export async function signInAndConsent(
  server: OAuthServer,
  browser: ScriptBrowser,
  start: string,
  person: Person,
  approve?: string[] | 'deny',
) {
  let page = await browser.follow(start, server.url);
  if (page.body.includes('name="password"')) {
    const login = formOf(page.body);
    page = await browser.follow(new URL(login.action, server.url).href, server.url, {
      form: { ...login.fields, email: person.email, password: person.password },
    });
  }
  if (page.body.includes('name="approve"')) {
    const consent = formOf(page.body);
    page = await browser.follow(new URL(consent.action, server.url).href, server.url, { form: consentForm(page.body, approve) });
  }
  return page;
}

/** The authorization request of spec 5.6 (PKCE S256, state, resource), then sign-in and consent. */
export async function authorize(server: OAuthServer, person: Person, options: AuthorizeOptions): Promise<Authorized> {
  const browser = options.browser ?? new ScriptBrowser();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(`${server.url}/v1/oauth/authorize`);
  const params: Record<string, string> = {
    client_id: options.client.client_id,
    redirect_uri: options.redirectUri ?? 'http://127.0.0.1/callback',
    response_type: 'code',
    scope: options.scope,
    state,
    ...(options.resource === null ? {} : { resource: options.resource ?? server.resources.mcp }),
    ...(options.codeChallenge === null
      ? {}
      : { code_challenge: options.codeChallenge ?? (await oauth.calculatePKCECodeChallenge(verifier)), code_challenge_method: 'S256' }),
    ...options.extra,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const page = await signInAndConsent(server, browser, url.href, person, options.approve);
  if (!page.location) throw new Error(`the authorization did not redirect back: ${page.status} ${page.body.slice(0, 400)}`);
  return { callback: new URL(page.location), state, verifier, browser };
}

/** Redeems the code of an authorization as the client would (validating `state` and `iss` first). */
export async function redeem(
  server: OAuthServer,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: Authorized,
  options: { resource?: string | null; redirectUri?: string; clientAuth?: oauth.ClientAuth } = {},
) {
  const params = oauth.validateAuthResponse(as, client, auth.callback, auth.state);
  const additionalParameters = options.resource === null ? undefined : { resource: options.resource ?? server.resources.mcp };
  return oauth.authorizationCodeGrantRequest(
    as,
    client,
    options.clientAuth ?? oauth.None(),
    params,
    options.redirectUri ?? 'http://127.0.0.1/callback',
    auth.verifier,
    {
      additionalParameters,
      ...insecure,
    },
  );
}

/** The error of a token-endpoint answer oauth4webapi refused. */
export async function tokenError(promise: Promise<unknown>): Promise<{ error: string; description?: string }> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) return { error: e.error, description: e.error_description };
    if (e instanceof oauth.WWWAuthenticateChallengeError) return { error: String(e.cause[0]?.parameters.error) };
    throw e;
  }
  throw new Error('expected the token endpoint to refuse');
}

export async function refresh(
  server: OAuthServer,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  refreshToken: string,
  resource: string | null = server.resources.mcp,
) {
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
    ...(resource === null ? {} : { additionalParameters: { resource } }),
    ...insecure,
  });
  return oauth.processRefreshTokenResponse(as, client, res);
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = async (res: Response): Promise<any> => res.json();
