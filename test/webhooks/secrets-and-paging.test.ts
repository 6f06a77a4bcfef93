import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import { migrationProvider } from '../../src/db/migrations/index.ts';
import type { DB } from '../../src/db/schema.ts';
import {
  createSecretBox,
  decryptV1,
  deriveSecretKey,
  encryptV1,
  orgSecretAad,
  SEALED_PREFIX,
  subscriptionSecretAad,
} from '../../src/modules/webhooks/secret-box.ts';
import { loadMasterKeys } from '../../src/db/master-key.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createServerKeys } from '../../src/db/server-secrets.ts';
import { testStores } from '../helpers/stores.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { db, ensureWebhookQueue, readyData } from './helpers.ts';

/** Signing secrets are sealed at rest (AES-256-GCM), and the webhook lists page with cursors (ADR 006). */
describe('webhook secrets at rest', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await testApp();
    org = await createTestOrg(t);
    await ensureWebhookQueue(t);
  });
  afterAll(async () => {
    await t.app.close();
  });

  it('stores the organization and subscription secrets sealed, never in plain text; the hint still works', async () => {
    const token = await org.token(['account']);
    const put = (
      await t.app.inject({
        method: 'PUT',
        url: '/v1/settings/webhook',
        headers: bearer(token),
        payload: { url: 'https://hooks.example.com/a' },
      })
    ).json();
    const sub = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhook-subscriptions',
        headers: bearer(token),
        payload: { target_url: 'https://hooks.example.com/s', events: ['segment.ready'] },
      })
    ).json();

    const settingsRow = await (
      await db()
    )
      .selectFrom('webhook_settings')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .executeTakeFirstOrThrow();
    const subRow = await (await db()).selectFrom('webhook_subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    for (const [row, secret] of [
      [settingsRow, put.secret],
      [subRow, sub.secret],
    ] as const) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
      expect(row.secret.startsWith(SEALED_PREFIX)).toBe(true);
      expect(row.secret).not.toContain(secret);
      expect(row.secret).not.toContain(secret.slice(6));
      expect(row.secret_hint).toBe(`${secret.slice(0, 6)}…${secret.slice(-4)}`);
    }
    expect(put.secret_hint).toBe(settingsRow.secret_hint);
    expect(sub.secret_hint).toBe(subRow.secret_hint);
    const got = (await t.app.inject({ method: 'GET', url: '/v1/settings/webhook', headers: bearer(token) })).json();
    expect(got.secret_hint).toBe(settingsRow.secret_hint);

    // Each row's ciphertext opens only on its own row: copied onto another org or subscription, it does not.
    const box = createSecretBox(await db(), createServerKeys((await testStores()).database, systemClock));
    expect(await box.open(settingsRow.secret, orgSecretAad(org.orgId))).toBe(put.secret);
    expect(await box.open(subRow.secret, subscriptionSecretAad(sub.id))).toBe(sub.secret);
    expect(await box.open(settingsRow.secret, orgSecretAad('org_other'))).toBeNull();
    expect(await box.open(subRow.secret, orgSecretAad(org.orgId))).toBeNull();
    expect(await box.open(put.secret, orgSecretAad(org.orgId))).toBeNull(); // plain text is never accepted
  });

  it('seals with a fresh IV each time and refuses a tampered ciphertext or a wrong key', () => {
    const key = deriveSecretKey('server-secret-a');
    const a = encryptV1(key, 'whsec_abc', 'x');
    const b = encryptV1(key, 'whsec_abc', 'x');
    expect(a).not.toBe(b);
    expect(decryptV1(key, a, 'x')).toBe('whsec_abc');
    const raw = Buffer.from(a.slice(SEALED_PREFIX.length), 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptV1(key, SEALED_PREFIX + raw.toString('base64url'), 'x')).toThrow();
    expect(() => decryptV1(deriveSecretKey('server-secret-b'), a, 'x')).toThrow();
  });

  it('migration 007 seals the plain-text secrets already stored, and the service opens them', async () => {
    const pglite = await PGlite.create();
    const fresh = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
    try {
      const migrator = new Migrator({ db: fresh, provider: migrationProvider });
      expect((await migrator.migrateTo('006-file-match')).error).toBeUndefined();
      const now = new Date();
      const legacy = fresh as unknown as Kysely<any>;
      await legacy.insertInto('organizations').values({ id: 'org_m', name: 'M', client_code: 'M1', created_at: now }).execute();
      await legacy
        .insertInto('webhook_settings')
        .values({
          org_id: 'org_m',
          url: 'https://h.example.com/o',
          secret: 'whsec_orgPlainSecret0000000000000000000001',
          secret_created_at: now,
          updated_at: now,
        })
        .execute();
      await legacy
        .insertInto('webhook_subscriptions')
        .values({
          id: 'whs_m',
          org_id: 'org_m',
          target_url: 'https://h.example.com/s',
          events: ['segment.ready'],
          secret: 'whsec_subPlainSecret0000000000000000000002',
          status: 'active',
          created_at: now,
          updated_at: now,
        })
        .execute();

      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const s = await fresh.selectFrom('webhook_settings').selectAll().executeTakeFirstOrThrow();
      const sub = await fresh.selectFrom('webhook_subscriptions').selectAll().executeTakeFirstOrThrow();
      expect(s.secret.startsWith(SEALED_PREFIX)).toBe(true);
      expect(sub.secret.startsWith(SEALED_PREFIX)).toBe(true);
      expect(s.secret_hint).toBe('whsec_…0001');
      expect(sub.secret_hint).toBe('whsec_…0002');
      const box = createSecretBox(
        fresh,
        createServerKeys({ db: fresh, masterKeys: loadMasterKeys({ dataDir: null, env: {} }) }, systemClock),
      );
      expect(await box.open(s.secret, orgSecretAad('org_m'))).toBe('whsec_orgPlainSecret0000000000000000000001');
      expect(await box.open(sub.secret, subscriptionSecretAad('whs_m'))).toBe('whsec_subPlainSecret0000000000000000000002');

      // And back: down restores the plain text.
      expect((await migrator.migrateTo('006-file-match')).error).toBeUndefined();
      expect((await legacy.selectFrom('webhook_settings').select('secret').executeTakeFirstOrThrow()).secret).toBe(
        'whsec_orgPlainSecret0000000000000000000001',
      );
    } finally {
      await fresh.destroy();
      await pglite.close();
    }
  }, 120_000);
});

describe('webhook list paging', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await testApp();
    await ensureWebhookQueue(t);
  });
  afterAll(async () => {
    await t.app.close();
  });

  const get = async (o: TestOrg, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(await o.token(['account'])) });
  const subscribe = async (o: TestOrg, target_url: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhook-subscriptions',
        headers: bearer(await o.token(['account'])),
        payload: { target_url, events: ['segment.ready'] },
      })
    ).json();
  const emit = async (orgId: string) =>
    (await db()).transaction().execute((trx) =>
      t.services.events.emit(trx, {
        orgId,
        type: 'segment.ready',
        subject: { kind: 'segment', id: 'seg_1', name: null },
        data: readyData,
      }),
    );

  /** Follows next_cursor to the end; returns the pages' ids. */
  async function pages(o: TestOrg, base: string, key: 'deliveries' | 'subscriptions', limit: number) {
    const out: string[][] = [];
    let cursor: string | null = null;
    do {
      const sep = base.includes('?') ? '&' : '?';
      const res = await get(o, `${base}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { next_cursor: string | null } & Record<string, { id: string }[]>;
      out.push(body[key]!.map((r) => r.id));
      cursor = body.next_cursor;
      expect(out.length).toBeLessThan(20);
    } while (cursor);
    return out;
  }

  it("pages a subscription's deliveries newest first across pages, with next_cursor null at the end", async () => {
    const o = await createTestOrg(t);
    const sub = await subscribe(o, 'https://hooks.example.com/p');
    for (let i = 0; i < 5; i++) {
      await emit(o.orgId);
      (t.clock as { advance?: (ms: number) => void }).advance?.(1000);
    }
    const all = (await get(o, `/v1/webhook-subscriptions/${sub.id}/deliveries?limit=100`)).json();
    expect(all.deliveries).toHaveLength(5);
    expect(all.next_cursor).toBeNull();
    const times = all.deliveries.map((d: { created_at: string }) => Date.parse(d.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const paged = await pages(o, `/v1/webhook-subscriptions/${sub.id}/deliveries`, 'deliveries', 2);
    expect(paged.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(paged.flat()).toEqual(all.deliveries.map((d: { id: string }) => d.id));
    // Exactly one page: no cursor.
    expect((await get(o, `/v1/webhook-subscriptions/${sub.id}/deliveries?limit=5`)).json().next_cursor).toBeNull();
  });

  it("pages an event's deliveries (equal timestamps are ordered by id) and the default page is 25", async () => {
    const o = await createTestOrg(t);
    const token = await o.token(['account']);
    await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/webhook',
      headers: bearer(token),
      payload: { url: 'https://hooks.example.com/org' },
    });
    for (let i = 0; i < 4; i++) await subscribe(o, `https://hooks.example.com/s${i}`);
    const { eventId, deliveryIds } = await emit(o.orgId);
    expect(deliveryIds).toHaveLength(5);
    const paged = await pages(o, `/v1/events/${eventId}/deliveries`, 'deliveries', 3);
    expect(paged.map((p) => p.length)).toEqual([3, 2]);
    expect(paged.flat()).toEqual([...deliveryIds].sort().reverse());
    const def = (await get(o, `/v1/events/${eventId}/deliveries`)).json();
    expect(def.deliveries).toHaveLength(5);
    expect(def.next_cursor).toBeNull();

    // Subscriptions list: 30 subscriptions → 25 by default, then 5.
    for (let i = 4; i < 30; i++) await subscribe(o, `https://hooks.example.com/s${i}`);
    const first = (await get(o, '/v1/webhook-subscriptions')).json();
    expect(first.subscriptions).toHaveLength(25);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await get(o, `/v1/webhook-subscriptions?cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second.subscriptions).toHaveLength(5);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.subscriptions, ...second.subscriptions].map((s: { id: string }) => s.id)).size).toBe(30);
    const byTwelve = await pages(o, '/v1/webhook-subscriptions', 'subscriptions', 12);
    expect(byTwelve.map((p) => p.length)).toEqual([12, 12, 6]);
  });

  it('refuses a malformed or foreign cursor with 400 INVALID_CURSOR, and a limit outside 1..100', async () => {
    const o = await createTestOrg(t);
    const subA = await subscribe(o, 'https://hooks.example.com/a');
    const subB = await subscribe(o, 'https://hooks.example.com/b');
    await emit(o.orgId);
    const { eventId } = await emit(o.orgId);
    const subCursor = (await get(o, `/v1/webhook-subscriptions/${subA.id}/deliveries?limit=1`)).json().next_cursor as string;
    const evtCursor = (await get(o, `/v1/events/${eventId}/deliveries?limit=1`)).json().next_cursor as string;
    const listCursor = (await get(o, '/v1/webhook-subscriptions?limit=1')).json().next_cursor as string;
    expect(subCursor && evtCursor && listCursor).toBeTruthy();

    for (const url of [
      `/v1/webhook-subscriptions/${subA.id}/deliveries?cursor=not-a-cursor`,
      `/v1/webhook-subscriptions/${subA.id}/deliveries?cursor=${Buffer.from('{"s":1}').toString('base64url')}`,
      `/v1/webhook-subscriptions/${subB.id}/deliveries?cursor=${subCursor}`, // another subscription's list
      `/v1/webhook-subscriptions/${subA.id}/deliveries?cursor=${evtCursor}`, // an event's list
      `/v1/events/${eventId}/deliveries?cursor=${subCursor}`,
      `/v1/events/${eventId}/deliveries?cursor=%7B%7D`,
      `/v1/webhook-subscriptions?cursor=${subCursor}`,
      `/v1/webhook-subscriptions/${subA.id}/deliveries?cursor=${listCursor}`,
    ]) {
      const res = await get(o, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toBe('INVALID_CURSOR');
    }
    for (const limit of [0, 101, -1]) {
      expect((await get(o, `/v1/webhook-subscriptions/${subA.id}/deliveries?limit=${limit}`)).statusCode).toBe(400);
      expect((await get(o, `/v1/webhook-subscriptions?limit=${limit}`)).statusCode).toBe(400);
    }
    expect((await get(o, `/v1/events/${eventId}/deliveries?limit=100`)).statusCode).toBe(200);
    // Another organization cannot use the list (404), cursor or not.
    const other = await createTestOrg(t);
    expect((await get(other, `/v1/webhook-subscriptions/${subA.id}/deliveries?cursor=${subCursor}`)).statusCode).toBe(404);
  });
});
