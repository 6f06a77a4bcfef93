import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../../src/lib/passwords.ts';
import { normalizeMetadataDocument, isLoopbackRedirect } from '../../../src/modules/oauth/clients/metadata-fetch.ts';
import { csrfToken, csrfValid, cookieValue, sameOrigin } from '../../../src/modules/oauth/pages/csrf.ts';
import { escapeHtml, html } from '../../../src/modules/oauth/pages/html.ts';
import { bearerChallenge, resourceMetadataUrl } from '../../../src/modules/oauth/protected-resource.ts';
import { libraryExp, recordKey, revive } from '../../../src/modules/oauth/oidc-provider/adapter.ts';
import { identityScopeProblem, resourceKindOf, resourceScopes } from '../../../src/modules/oauth/resources.ts';

const resources = { api: 'https://ads.example/v1', mcp: 'https://ads.example/mcp', a2a: 'https://ads.example/agent' };

describe('resources and scopes', () => {
  it('matches resource indicators exactly (no trailing slash, no alias)', () => {
    expect(resourceKindOf(resources, 'https://ads.example/mcp')).toBe('mcp');
    expect(resourceKindOf(resources, 'https://ads.example/mcp/')).toBeNull();
    expect(resourceKindOf(resources, 'https://ADS.example/mcp')).toBeNull();
  });
  it('allows openid and email only with the tool resource, and email only with openid', () => {
    expect(identityScopeProblem('mcp', new Set(['openid', 'email', 'discovery']))).toBeNull();
    expect(identityScopeProblem('api', new Set(['openid', 'discovery']))).toBe('openid can only be requested with the tool resource');
    expect(identityScopeProblem('a2a', new Set(['openid', 'email']))).toBe('openid and email can only be requested with the tool resource');
    expect(identityScopeProblem('mcp', new Set(['email']))).toBe('email requires openid');
    expect(resourceScopes('api')).toEqual(['discovery', 'creator', 'account-read']);
    expect(resourceScopes('mcp')).toEqual(['discovery', 'creator', 'account-read', 'openid', 'email']);
  });
  it('builds the path-inserted RFC 9728 URL and the bearer challenges', () => {
    expect(resourceMetadataUrl('https://ads.example/v1')).toBe('https://ads.example/.well-known/oauth-protected-resource/v1');
    expect(resourceMetadataUrl('https://ads.example')).toBe('https://ads.example/.well-known/oauth-protected-resource');
    expect(bearerChallenge('https://ads.example/mcp')).toBe(
      'Bearer resource_metadata="https://ads.example/.well-known/oauth-protected-resource/mcp"',
    );
    expect(bearerChallenge('https://ads.example/v1', { error: 'insufficient_scope', scope: 'creator' })).toBe(
      'Bearer error="insufficient_scope", resource_metadata="https://ads.example/.well-known/oauth-protected-resource/v1", scope="creator"',
    );
    expect(bearerChallenge('https://ads.example/v1', { error: 'invalid_token', description: 'said "no"' })).toContain(
      'error_description="said no"',
    );
  });
});

describe('storage adapter', () => {
  it('keys presentable values by their SHA-256 and keeps the ids the library looks up by a second key', () => {
    expect(recordKey('AccessToken', 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(recordKey('RefreshToken', 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(recordKey('Session', 'abc')).toBe('abc');
    expect(recordKey('DeviceCode', 'abc')).toBe('abc');
    expect(recordKey('Grant', 'abc')).toBe('abc');
  });
  it("restates expiry in the library's frame: what remains on the service clock, from the library's now", () => {
    const clock = new ManualClock('2020-01-01T00:00:00Z'); // far from the real time on purpose
    const nowSeconds = Math.floor(Date.now() / 1000);
    expect(libraryExp(new Date('2020-01-01T00:01:00Z'), clock) - nowSeconds).toBeGreaterThanOrEqual(59);
    expect(libraryExp(new Date('2020-01-01T00:01:00Z'), clock) - nowSeconds).toBeLessThanOrEqual(60);
    clock.advance(61_000);
    expect(libraryExp(new Date('2020-01-01T00:01:00Z'), clock)).toBeLessThan(nowSeconds);
    const row = {
      model: 'AccessToken',
      key: 'hash',
      payload: { scope: 'discovery' },
      expires_at: new Date('2020-01-01T00:30:00Z'),
      consumed_at: new Date('2020-01-01T00:00:10Z'),
    } as never;
    const revived = revive(row, 'the-token', clock);
    expect(revived).toMatchObject({ jti: 'the-token', scope: 'discovery', consumed: 1577836810 });
  });
});

describe('client metadata documents', () => {
  it('reads a loopback-only document without application_type as a native client (any loopback port)', () => {
    const doc = { client_id: 'https://a.example/c.json', redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/cb'] };
    expect(normalizeMetadataDocument(doc)).toEqual({ ...doc, application_type: 'native' });
    expect(normalizeMetadataDocument({ ...doc, application_type: 'web' }).application_type).toBe('web');
    expect(
      normalizeMetadataDocument({ ...doc, redirect_uris: ['http://127.0.0.1/cb', 'https://a.example/cb'] }).application_type,
    ).toBeUndefined();
    expect(isLoopbackRedirect('https://127.0.0.1/cb')).toBe(false);
    expect(isLoopbackRedirect('http://localhost:8080/cb')).toBe(true);
  });
});

describe('pages', () => {
  it('escapes every interpolated value', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const name = '<script>alert(1)</script>';
    expect(html`<p>${name}</p>`.text).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(html`<ul>${['a', '<b>'].map((x) => html`<li>${x}</li>`)}</ul>`.text).toBe('<ul><li>a</li><li>&lt;b&gt;</li></ul>');
  });
  it('signs CSRF tokens to their purpose and binding, and refuses cross-site posts', () => {
    const token = csrfToken('k', 'consent', 'uid:sig'); // HMAC-SHA256(k, "consent\nuid:sig"), checked with openssl
    expect(token).toBe('qGUXiM3_MZ6Q7lcqiM0-WOilkYqCWMyT83FgNFs-0Rg');
    expect(csrfValid('k', 'consent', 'uid:sig', token)).toBe(true);
    expect(csrfValid('k', 'login', 'uid:sig', token)).toBe(false);
    expect(csrfValid('k', 'consent', 'other:sig', token)).toBe(false);
    expect(csrfValid('k', 'consent', 'uid:sig', undefined)).toBe(false);
    expect(sameOrigin({ origin: 'https://ads.example' }, 'https://ads.example')).toBe(true);
    expect(sameOrigin({ origin: 'https://evil.example' }, 'https://ads.example')).toBe(false);
    expect(sameOrigin({ 'sec-fetch-site': 'cross-site' }, 'https://ads.example')).toBe(false);
    expect(sameOrigin({}, 'https://ads.example')).toBe(true);
    expect(cookieValue('a=1; ads_interaction.sig=xyz=; b=2', 'ads_interaction.sig')).toBe('xyz=');
  });
});

describe('passwords', () => {
  it('hashes with scrypt and a salt, verifies, and refuses short passwords', async () => {
    const hash = await hashPassword('correct horse battery staple', 10);
    expect(hash).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hashPassword('correct horse battery staple', 10)).not.toBe(hash);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stable', hash)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
    expect(passwordProblem('short')).toBe('A password needs at least 12 characters.');
    expect(passwordProblem('twelve chars')).toBeNull();
  });
});
