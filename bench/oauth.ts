import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import * as oauth from 'oauth4webapi';
import { hashPassword, verifyPassword } from '../src/lib/passwords.ts';
import { serveProcess } from '../test/helpers/serve-process.ts';
import { formOf, ScriptBrowser } from '../test/oauth/script-browser.ts';

/**
 * What OAuth costs per request: GET /v1/auth/session with an OAuth access token (a token lookup and a
 * membership check per call) beside the same call with an API-key bearer (no I/O), same process, same
 * run; and the password hash at the default cost (N = 2^17). BENCH_DATABASE_URL runs the service on PostgreSQL.
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PASSWORD = 'benchmark passphrase 2026';

async function load(url: string, headers: Record<string, string>) {
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers }); // warm-up
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  return {
    requests_per_second: Math.round(r.requests.average),
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
  };
}

const t0 = performance.now();
const hash = await hashPassword(PASSWORD);
const t1 = performance.now();
await verifyPassword(PASSWORD, hash);
const t2 = performance.now();

// OAuth needs the public URL (the issuer) before start: pick a free port first.
const probe = createServer();
await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
const port = (probe.address() as AddressInfo).port;
await new Promise((resolve) => probe.close(resolve));
const service = await serveProcess(['src/main.ts', 'serve'], {
  DATA_DIR: mkdtempSync(join(tmpdir(), 'ads-bench-oauth-')),
  PORT: String(port),
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  GRAPH_PERSONS: '0',
  // Embedded PGlite by default; BENCH_DATABASE_URL measures on PostgreSQL (an empty database).
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  RATE_LIMITS: JSON.stringify({ pilot: 100_000_000 }),
  PASSWORD_SCRYPT_LOG_N: '12',
});
const url = service.url;
const post = async (path: string, body: unknown, token?: string) =>
  (
    await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
  ).json() as Promise<Record<string, any>>;
const apiToken = (await post('/v1/auth/token', { api_key: service.output().match(/ads_live_[A-Za-z0-9]{40}/)![0] })).access_token as string;

// A person: invited over the API, accepted through the link in the development outbox.
await post('/v1/settings/users', { email: 'bench@example.com', role: 'admin' }, apiToken);
const link = (await (await fetch(`${url}/dev/outbox`)).text()).match(/http:\/\/127\.0\.0\.1:\d+\/v1\/oauth\/invitations\/[A-Za-z0-9]+/)![0];
const browser = new ScriptBrowser();
await browser.request(link, { form: { ...formOf((await browser.request(link)).body).fields, password: PASSWORD, confirm: PASSWORD } });

// A public client, and one authorization for the REST API resource.
const client = (await post('/v1/oauth/register', {
  client_name: 'Bench',
  application_type: 'native',
  redirect_uris: ['http://127.0.0.1/cb'],
  token_endpoint_auth_method: 'none',
})) as oauth.Client;
const as = await oauth.processDiscoveryResponse(
  new URL(url),
  await oauth.discoveryRequest(new URL(url), { [oauth.allowInsecureRequests]: true }),
);
const verifier = oauth.generateRandomCodeVerifier();
const authorize = new URL(`${url}/v1/oauth/authorize`);
for (const [k, v] of Object.entries({
  client_id: client.client_id,
  redirect_uri: 'http://127.0.0.1/cb',
  response_type: 'code',
  scope: 'discovery',
  resource: `${url}/v1`,
  code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
  code_challenge_method: 'S256',
}))
  authorize.searchParams.set(k, v);
let page = await browser.follow(authorize.href, url);
page = await browser.follow(new URL(formOf(page.body).action, url).href, url, {
  form: { ...formOf(page.body).fields, email: 'bench@example.com', password: PASSWORD },
});
page = await browser.follow(new URL(formOf(page.body).action, url).href, url, {
  form: { ...formOf(page.body).fields, scope: 'discovery', approve: 'approve' },
});
const params = oauth.validateAuthResponse(as, client, new URL(page.location!), oauth.expectNoState);
const tokens = await oauth.processAuthorizationCodeResponse(
  as,
  client,
  await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, 'http://127.0.0.1/cb', verifier, {
    additionalParameters: { resource: `${url}/v1` },
    [oauth.allowInsecureRequests]: true,
  }),
);

const apiKeyBearer = await load(`${url}/v1/auth/session`, { authorization: `Bearer ${apiToken}` });
const oauthBearer = await load(`${url}/v1/auth/session`, { authorization: `Bearer ${tokens.access_token}` });
await service.stop();

console.log(
  JSON.stringify(
    {
      benchmark: 'oauth',
      password_hash_ms: Math.round(t1 - t0),
      password_verify_ms: Math.round(t2 - t1),
      connections: CONNECTIONS,
      duration_seconds: DURATION,
      api_key_bearer: apiKeyBearer,
      oauth_access_token: oauthBearer,
      throughput_ratio: Number((oauthBearer.requests_per_second / apiKeyBearer.requests_per_second).toFixed(3)),
    },
    null,
    2,
  ),
);
