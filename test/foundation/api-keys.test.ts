import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { testStores } from '../helpers/stores.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';

describe('API keys and bearer tokens (spec 5.1-5.4, 4.8)', () => {
  let t: TestApp;
  let org: TestOrg;
  const clock = new ManualClock('2026-03-01T12:00:00Z');

  beforeAll(async () => {
    t = await testApp({ clock });
    org = await createTestOrg(t);
  });
  afterAll(() => t.app.close());

  const createKey = (token: string, body: unknown) =>
    t.app.inject({ method: 'POST', url: '/v1/settings/api-keys', headers: bearer(token), payload: body as object });

  it('creates a key whose raw value is returned once and never stored or listed', async () => {
    const token = await org.token(['discovery', 'creator', 'account']);
    const res = await createKey(token, { name: 'partner sync', scopes: ['discovery', 'purchase'] });
    expect(res.statusCode).toBe(201);
    const key = res.json();
    expect(key.raw_key).toMatch(/^ads_live_[A-Za-z0-9]{40}$/);
    expect(key.scopes).toEqual(['discovery', 'creator']);
    expect(Object.keys(key).sort()).toEqual(['created_at', 'id', 'name', 'raw_key', 'scopes']);

    const list = await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.raw_key);
    const listed = list.json().api_keys.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ name: 'partner sync', status: 'active' });
    expect(listed.raw_key).toBeUndefined();

    const { database } = await testStores();
    const rows = await database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).execute();
    expect(JSON.stringify(rows)).not.toContain(key.raw_key);
  });

  it('defaults scopes to discovery and validates name length and scopes', async () => {
    const token = await org.token(['discovery', 'creator', 'account']);
    const ok = await createKey(token, { name: 'reader' });
    expect(ok.json().scopes).toEqual(['discovery']);
    const blank = await createKey(token, { name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ error: 'INVALID_REQUEST' });
    for (const body of [{ name: '' }, { name: 'x'.repeat(81) }, { name: 'k', scopes: ['root'] }, {}]) {
      const res = await createKey(token, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'INVALID_REQUEST' });
      expect(res.json().issues.length).toBeGreaterThan(0);
    }
  });

  it('exchanges a key for a one-hour bearer that works until it expires', async () => {
    const raw = await org.rawKey(['discovery', 'account']);
    const res = await t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { api_key: raw } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const token = res.json().access_token;
    expect((await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) })).statusCode).toBe(200);

    clock.advance(3599_000);
    expect((await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) })).statusCode).toBe(200);
    clock.advance(1_000);
    const expired = await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(token) });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ error: 'TOKEN_EXPIRED' });
  });

  it('refuses unknown keys, missing, malformed and raw-key bearers with 401 TOKEN_INVALID', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { api_key: 'ads_live_nope' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error).toBe('TOKEN_INVALID');
    const raw = await org.rawKey(['account']);
    for (const headers of [{}, { authorization: 'Basic abc' }, bearer('ads_at.e30.sig'), bearer(raw), bearer('garbage')]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('TOKEN_INVALID');
      expect(res.json().request_id).toBe(res.headers['x-request-id']);
    }
  });

  it('rejects a token signed with another secret (tampered payload)', async () => {
    const token = await org.token(['discovery']);
    const [prefix, payload, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.scopes = ['account'];
    const forged = `${prefix}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    const res = await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(forged) });
    expect(res.json().error).toBe('TOKEN_INVALID');
  });

  it('answers 403 SCOPE_REQUIRED when the token lacks the scope', async () => {
    const token = await org.token(['discovery', 'creator']);
    const res = await createKey(token, { name: 'nope' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'SCOPE_REQUIRED', required_scope: 'account' });
  });

  it('lets only owners and admins create or revoke keys, even with the account scope', async () => {
    const memberId = await org.addUser('member');
    const adminId = await org.addUser('admin');
    const memberToken = await org.token(['discovery', 'creator', 'account'], memberId);
    const denied = await createKey(memberToken, { name: 'member key' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe('OWNER_OR_ADMIN_REQUIRED');

    const adminToken = await org.token(['discovery', 'creator', 'account'], adminId);
    const created = await createKey(adminToken, { name: 'admin key' });
    expect(created.statusCode).toBe(201);
    const revokeByMember = await t.app.inject({
      method: 'DELETE',
      url: `/v1/settings/api-keys/${created.json().id}`,
      headers: bearer(memberToken),
    });
    expect(revokeByMember.statusCode).toBe(403);
  });

  it('deactivates a key: new exchanges fail, issued tokens keep working until expiry', async () => {
    const ownerToken = await org.token(['account']);
    const created = (await createKey(ownerToken, { name: 'short lived', scopes: ['account'] })).json();
    const issued = (await t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { api_key: created.raw_key } })).json()
      .access_token;

    const del = await t.app.inject({ method: 'DELETE', url: `/v1/settings/api-keys/${created.id}`, headers: bearer(ownerToken) });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ id: created.id, status: 'deactivated' });

    const exchange = await t.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { api_key: created.raw_key } });
    expect(exchange.statusCode).toBe(401);
    expect(exchange.json().error).toBe('TOKEN_INVALID');
    expect((await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(issued) })).statusCode).toBe(200);
    clock.advance(3600_000);
    expect((await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(issued) })).json().error).toBe(
      'TOKEN_EXPIRED',
    );
  });

  it('isolates organizations: another organization cannot see or revoke a key (404)', async () => {
    const other = await createTestOrg(t);
    const mine = (await createKey(await org.token(['discovery', 'creator', 'account']), { name: 'mine' })).json();
    const otherToken = await other.token(['account']);
    const list = await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(otherToken) });
    expect(list.json().api_keys.map((k: { id: string }) => k.id)).not.toContain(mine.id);
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/settings/api-keys/${mine.id}`, headers: bearer(otherToken) });
    expect(del.statusCode).toBe(404);
    expect(del.json().error).toBe('API_KEY_NOT_FOUND');
  });

  it('refuses to grant scopes the calling credential does not hold (SCOPE_NOT_HELD), creating nothing', async () => {
    const accountOnly = await org.token(['account']);
    const before = (await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(accountOnly) })).json().api_keys
      .length;
    for (const scopes of [['discovery'], ['creator'], ['account', 'purchase']]) {
      const res = await createKey(accountOnly, { name: 'escalate', scopes });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'SCOPE_NOT_HELD', scopes_not_held: expect.any(Array) });
    }
    expect((await createKey(accountOnly, { name: 'same', scopes: ['account'] })).statusCode).toBe(201);
    const after = (await t.app.inject({ method: 'GET', url: '/v1/settings/api-keys', headers: bearer(accountOnly) })).json().api_keys
      .length;
    expect(after).toBe(before + 1);
  });
});

describe('GET /v1/auth/session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ clock: new ManualClock('2026-04-01T00:00:00Z') });
  });
  afterAll(() => t.app.close());

  it('describes the calling token for any scope, and 401s without one', async () => {
    const org = await createTestOrg(t);
    const res = await t.app.inject({ method: 'GET', url: '/v1/auth/session', headers: bearer(await org.token(['account'])) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      org_id: org.orgId,
      user_id: org.ownerId,
      scopes: ['account'],
      via: 'api_key',
      expires_at: '2026-04-01T01:00:00.000Z',
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/auth/session' })).json().error).toBe('TOKEN_INVALID');
  });
});
