/**
 * People and grants (spec 5.9, 5.12): invitations with email verification (development outbox; SMTP in
 * production), membership and verified email checked on every call, removal and suspension ending
 * grants, and owners listing and revoking their organization's grants.
 */
import * as oauth from 'oauth4webapi';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/lib/clock.ts';
import { createMailer } from '../../src/modules/oauth/people/mail.ts';
import { createTestOrg, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { authorize, bearer, discover, json, redeem, refresh, registerPublicClient, tokenError } from './flows.ts';
import { formOf, ScriptBrowser } from './script-browser.ts';
import { addPerson, oauthServer, PASSWORD, type OAuthServer, type Person } from './setup.ts';

describe('people, invitations and OAuth grants', () => {
  let server: OAuthServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client & { client_id: string };
  let org: TestOrg;
  let adminToken: string;

  beforeAll(async () => {
    server = await oauthServer();
    as = await discover(server);
    client = await registerPublicClient(server, { client_name: 'Grants Agent' });
    org = await createTestOrg(server);
  });
  // API-key bearers live an hour and tests move the clock: a fresh one per test.
  beforeEach(async () => {
    adminToken = await org.token(['discovery', 'creator', 'account']);
  });

  const api = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...bearer(token), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  /** A REST-resource connection for a person: its tokens. */
  async function connect(person: Person) {
    const auth = await authorize(server, person, { client, scope: 'discovery', resource: server.resources.api });
    return oauth.processAuthorizationCodeResponse(as, client, await redeem(server, as, client, auth, { resource: server.resources.api }));
  }

  it('invites a person by email: the outbox shows the link, accepting sets the password and verifies the email, then they can connect', async () => {
    const email = `invitee-${Date.now()}@example.com`;
    const invited = await api('POST', '/v1/settings/users', adminToken, { email, role: 'member' });
    expect(invited.status).toBe(201);
    const user = await json(invited);
    expect(user).toMatchObject({ email, role: 'member', status: 'invited', email_verified: false });

    // Not yet: an invited person has no password and an unverified email.
    expect(await server.services.organizations.signInCandidates(email, PASSWORD)).toEqual([]);

    const outbox = await (await fetch(`${server.url}/dev/outbox`)).text();
    const link = outbox.match(new RegExp(`${server.url.replace(/[.:/]/g, '\\$&')}/v1/oauth/invitations/[A-Za-z0-9]+`))?.[0];
    expect(link, 'the invitation link is in the development outbox').toBeTruthy();
    expect(outbox).toContain(email);

    const browser = new ScriptBrowser();
    const form = formOf((await browser.request(link!)).body);
    const mismatch = await browser.request(link!, { form: { ...form.fields, password: PASSWORD, confirm: 'something else entirely' } });
    expect(mismatch.status).toBe(400);
    const forged = await browser.request(link!, { form: { csrf: 'forged', password: PASSWORD, confirm: PASSWORD } });
    expect(forged.status).toBe(403);
    const accepted = await browser.request(link!, { form: { ...form.fields, password: PASSWORD, confirm: PASSWORD } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toContain('is verified');
    expect((await browser.request(link!)).status).toBe(404); // used once

    const users = await json(await api('GET', '/v1/settings/users', adminToken));
    expect(users.users.find((u: { id: string }) => u.id === user.id)).toMatchObject({ status: 'active', email_verified: true });
    const tokens = await connect({ userId: user.id, email, password: PASSWORD });
    expect(await json(await api('GET', '/v1/auth/session', tokens.access_token))).toMatchObject({ user_id: user.id, via: 'oauth' });
  });

  it('expires invitation links after INVITATION_TTL_HOURS', async () => {
    const email = `late-${Date.now()}@example.com`;
    expect((await api('POST', '/v1/settings/users', adminToken, { email, role: 'member' })).status).toBe(201);
    const outbox = await (await fetch(`${server.url}/dev/outbox`)).text();
    const link = outbox.match(/http:\/\/127\.0\.0\.1:\d+\/v1\/oauth\/invitations\/[A-Za-z0-9]+/)![0];
    server.clock.advance(73 * HOUR);
    expect((await fetch(link)).status).toBe(404);
  });

  it("checks membership on every call: removal and suspension refuse the person's tokens and end their grants", async () => {
    const removed = await addPerson(server, org);
    const suspended = await addPerson(server, org);
    const quietlySuspended = await addPerson(server, org);
    const [a, b, c] = [await connect(removed), await connect(suspended), await connect(quietlySuspended)];

    expect((await api('DELETE', `/v1/settings/users/${removed.userId}`, adminToken)).status).toBe(200);
    const refused = await api('GET', '/v1/auth/session', a.access_token);
    expect(refused.status).toBe(401);
    expect((await json(refused)).error).toBe('TOKEN_INVALID');
    expect((await tokenError(refresh(server, as, client, a.refresh_token!, server.resources.api))).error).toBe('invalid_grant');

    const patched = await api('PATCH', `/v1/settings/users/${suspended.userId}`, adminToken, { status: 'suspended' });
    expect(await json(patched)).toMatchObject({ status: 'suspended' });
    expect((await json(await api('GET', '/v1/auth/session', b.access_token))).error).toBe('TOKEN_INVALID');

    // Even a status change that bypasses grant revocation is caught on the next call and on refresh.
    await server.services.organizations.setUserStatus(org.orgId, quietlySuspended.userId, 'suspended');
    expect((await json(await api('GET', '/v1/auth/session', c.access_token))).error).toBe('TOKEN_INVALID');
    expect((await tokenError(refresh(server, as, client, c.refresh_token!, server.resources.api))).error).toBe('invalid_grant');
    // A suspended person cannot sign in to approve new connections either.
    const page = await authorize(server, suspended, { client, scope: 'discovery', resource: server.resources.api }).catch((e: Error) => e);
    expect(page).toBeInstanceOf(Error);
  });

  it("lets owners and admins list and revoke the organization's grants; others get 403, other organizations 404", async () => {
    const person = await addPerson(server, org);
    const tokens = await connect(person);
    const listed = await json(await api('GET', '/v1/settings/oauth-grants', adminToken));
    const grant = listed.grants.find((g: { user_id: string }) => g.user_id === person.userId);
    expect(grant).toMatchObject({
      client_id: client.client_id,
      client_name: 'Grants Agent',
      user_email: person.email,
      resources: [{ resource: server.resources.api, scopes: ['discovery'] }],
    });

    const memberKey = await org.token(['discovery', 'account'], person.userId);
    const forbidden = await api('GET', '/v1/settings/oauth-grants', memberKey);
    expect(forbidden.status).toBe(403);
    expect((await json(forbidden)).error).toBe('OWNER_OR_ADMIN_REQUIRED');

    const other = await createTestOrg(server);
    const elsewhere = await api('DELETE', `/v1/settings/oauth-grants/${grant.id}`, await other.token(['discovery', 'account']));
    expect(elsewhere.status).toBe(404);
    expect((await json(elsewhere)).error).toBe('OAUTH_GRANT_NOT_FOUND');

    expect((await api('DELETE', `/v1/settings/oauth-grants/${grant.id}`, adminToken)).status).toBe(204);
    expect((await json(await api('GET', '/v1/auth/session', tokens.access_token))).error).toBe('TOKEN_INVALID');
    expect((await tokenError(refresh(server, as, client, tokens.refresh_token!, server.resources.api))).error).toBe('invalid_grant');
    const after = await json(await api('GET', '/v1/settings/oauth-grants', adminToken));
    expect(after.grants.some((g: { id: string }) => g.id === grant.id)).toBe(false);
  });
});

describe('mail over SMTP (production transport)', () => {
  it('sends through SMTP_URL and records the message as sent; a failing server leaves the error on the outbox row', async () => {
    const received: { to: string; data: string }[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), data });
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const { database } = await testStores();
    const clock = { now: () => new Date() };
    try {
      const mailer = createMailer({
        db: database.db,
        clock,
        smtpUrl: `smtp://127.0.0.1:${port}`,
        from: 'Audience Data Service <no-reply@example.com>',
      });
      expect(mailer.transport).toBe('smtp');
      const id = await mailer.send({
        to: 'someone@example.com',
        subject: 'Hello',
        text: 'Choose your password here: https://x.example/i/abc',
      });
      expect(received).toHaveLength(1);
      expect(received[0]!.to).toBe('someone@example.com');
      expect(received[0]!.data).toContain('Subject: Hello');
      const row = await database.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.sent_at).not.toBeNull();
      mailer.close();

      const broken = createMailer({ db: database.db, clock, smtpUrl: 'smtp://127.0.0.1:9', from: 'x@example.com' });
      const failedId = await broken.send({ to: 'someone@example.com', subject: 'Lost', text: '...' });
      const failed = await database.db.selectFrom('mail_outbox').selectAll().where('id', '=', failedId).executeTakeFirstOrThrow();
      expect(failed.sent_at).toBeNull();
      expect(failed.last_error).toMatch(/ECONNREFUSED|connect/);
      broken.close();
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
