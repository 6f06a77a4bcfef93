/**
 * Keys at rest (issue 12, ADR 026): the master key lives outside the database, every key the database
 * holds is wrapped under it, a dump alone mints nothing that verifies, token and URL lifetimes are capped
 * at verification, and the operator's rotation keeps person ids and issued tokens valid.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollSigningCommand, rotateMasterCommand } from '../../src/cli/key-management.ts';
import { openDatabase } from '../../src/db/database.ts';
import { loadMasterKeys, MasterKeyError } from '../../src/db/master-key.ts';
import { encodeGraphPersonId } from '../../src/identity/person-id.ts';
import { ManualClock, systemClock } from '../../src/lib/clock.ts';
import { hmacSha256 } from '../../src/lib/crypto.ts';
import {
  ACCESS_TOKEN_SECRET,
  createServerKeys,
  OBJECT_URL_SECRET,
  PERSON_ID_SECRET,
  rollSigningKeys,
} from '../../src/db/server-secrets.ts';
import { signAccessToken } from '../../src/modules/auth/tokens.ts';
import { createUrlSigner } from '../../src/objects/signed-urls.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';

const ALL_SCOPES = ['discovery', 'creator', 'account', 'purchase'];
const session = (t: TestApp, token: string) => t.app.inject({ method: 'GET', url: '/v1/auth/session', headers: bearer(token) });

/** A token as an attacker would mint it: any claims, signed with a guessed key. */
function mint(secret: string, org: TestOrg, lifetimeSeconds: number, now = Math.floor(Date.now() / 1000)): string {
  return signAccessToken(
    { org: org.orgId, sub: org.ownerId, kid: 'key_forged', scopes: ALL_SCOPES, iat: now, exp: now + lifetimeSeconds },
    secret,
  );
}

describe('a database dump alone', () => {
  let t: TestApp;
  let victim: TestOrg;

  beforeAll(async () => {
    t = await testApp({ clock: systemClock });
    victim = await createTestOrg(t);
    await victim.token(['discovery']); // the signing key exists
  });
  afterAll(async () => {
    await t.app.close();
  });

  it('holds every server key wrapped under the master key, never in plain text', async () => {
    const { database } = await testStores();
    const rows = await database.db.selectFrom('server_secrets').select(['name', 'value']).execute();
    const oauthRows = await database.db.selectFrom('oauth_secrets').select(['name', 'value']).execute();
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining([ACCESS_TOKEN_SECRET, 'webhook_secret_key']));
    const id = database.masterKeys[0]!.id;
    for (const row of [...rows, ...oauthRows]) expect(row.value.startsWith(`mk1.${id}.`)).toBe(true);
    // The unwrapped signing key appears nowhere in the dump.
    const [signing] = await createServerKeys(database, systemClock).signing(ACCESS_TOKEN_SECRET).keys();
    for (const row of [...rows, ...oauthRows]) expect(row.value).not.toContain(signing!);
  });

  it('cannot mint a token that verifies: every stored value, and every part of it, as the HMAC key is refused', async () => {
    const { database } = await testStores();
    const dump = [
      ...(await database.db.selectFrom('server_secrets').select('value').execute()),
      ...(await database.db.selectFrom('oauth_secrets').select('value').execute()),
    ].map((r) => r.value);
    const candidates = new Set<string>();
    for (const value of dump) {
      candidates.add(value);
      for (const part of value.split('.')) candidates.add(part);
    }
    for (const candidate of candidates) {
      for (const lifetime of [3600, 10 * 365 * 86400]) {
        const res = await session(t, mint(candidate, victim, lifetime));
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toBe('TOKEN_INVALID');
      }
    }
  });

  it('caps lifetimes at verification: even the real key cannot mint a 10-year bearer, while a 1-hour one works', async () => {
    const { database } = await testStores();
    const [key] = await createServerKeys(database, systemClock).signing(ACCESS_TOKEN_SECRET).keys();
    const ok = await session(t, mint(key!, victim, 3600));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().org_id).toBe(victim.orgId);
    const long = await session(t, mint(key!, victim, 10 * 365 * 86400));
    expect(long.statusCode).toBe(401);
    expect(long.json().error).toBe('TOKEN_INVALID');
    // Issued in the future (backdating the expiry window) is refused too.
    const future = await session(t, mint(key!, victim, 3600, Math.floor(Date.now() / 1000) + 7200));
    expect(future.statusCode).toBe(401);
  });

  it('caps signed URL lifetimes: a correctly signed URL expiring beyond 24 hours is refused', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const signer = createUrlSigner({ secrets: ['k-current', 'k-rolled'], publicUrl: 'http://h', maxLifetimeSeconds: 86400 });
    const query = (url: string) => Object.fromEntries(new URL(url).searchParams) as { expires: string; signature: string };
    const path = '/v1/uploads/org_a/seg_a/1/0';
    const within = signer.url({ method: 'PUT', path, expiresAt: new Date(now.getTime() + 86400_000) });
    expect(() => signer.verify('PUT', path, query(within), now)).not.toThrow();
    const beyond = signer.url({ method: 'PUT', path, expiresAt: new Date(now.getTime() + 86400_000 + 1000) });
    expect(() => signer.verify('PUT', path, query(beyond), now)).toThrow(expect.objectContaining({ code: 'UPLOAD_URL_INVALID' }));
    // A rolled-out key still verifies (the overlap); a key not in the ring does not.
    const expires = Math.floor(now.getTime() / 1000) + 600;
    const sig = (k: string) => hmacSha256(k, `PUT\n${path}\n${expires}`).toString('base64url');
    expect(() => signer.verify('PUT', path, { expires: String(expires), signature: sig('k-rolled') }, now)).not.toThrow();
    expect(() => signer.verify('PUT', path, { expires: String(expires), signature: sig('k-other') }, now)).toThrow(
      expect.objectContaining({ code: 'UPLOAD_URL_INVALID' }),
    );
  });
});

describe('rolling the signing keys', () => {
  it('keeps tokens signed before the roll valid, makes new ones verify in processes that read the old keys, and retires the old key after one lifetime', async () => {
    const before = await testApp({ clock: systemClock });
    const org = await createTestOrg(before);
    const oldToken = await org.token(['discovery']);
    expect((await session(before, oldToken)).statusCode).toBe(200);
    const { database } = await testStores();
    const [oldKey] = await createServerKeys(database, systemClock).signing(ACCESS_TOKEN_SECRET).keys();

    const rolled = await rollSigningKeys(database, new Date());
    expect(rolled).toEqual([ACCESS_TOKEN_SECRET, OBJECT_URL_SECRET]);

    const after = await testApp({ clock: systemClock });
    try {
      // A process started after the roll: the old token still verifies; it signs with the new key.
      expect((await session(after, oldToken)).statusCode).toBe(200);
      const newToken = await org.token(['discovery']);
      const [newKey, stillOld] = await createServerKeys(database, systemClock).signing(ACCESS_TOKEN_SECRET).keys();
      expect(newKey).not.toBe(oldKey);
      expect(stillOld).toBe(oldKey);
      const fresh = (await after.services.auth.exchangeApiKey(await org.rawKey(['discovery']))).access_token;
      // The process that read the keys before the roll verifies the new key's tokens (it reads them again).
      expect((await session(before, fresh)).statusCode).toBe(200);
      expect((await session(before, newToken)).statusCode).toBe(200);
      // One token lifetime later the old key is gone from the ring.
      const later = createServerKeys(database, new ManualClock(new Date(Date.now() + 3601_000)));
      expect(await later.signing(ACCESS_TOKEN_SECRET).keys()).toEqual([newKey]);
    } finally {
      await after.app.close();
      await before.app.close();
    }
  });
});

describe('the master key file and its rotation (embedded store)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ads-keys-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv; // no ADS_MASTER_KEY: the key file

  // Tier 01 ids under the person-id key below, computed once and fixed here: they must never change.
  const FIXED_IDS = ['KEYS_01_4AMEVS5OWB67Z5LZFPM4QA2RYE', 'KEYS_01_KGMWJFDZCQZ5BNLDSTHRD35KTU'];
  const personIds = (secret: string) =>
    [123456789n, 987654321012n].map((personKey) =>
      encodeGraphPersonId({ orgId: 'org_keys_fixture', orgClientCode: 'KEYS', personKey, secret }),
    );

  it('creates DATA_DIR/master.key with mode 0600 beside the store, and seals a plain-text key left by an older version', async () => {
    const database = await openDatabase({ databaseUrl: null, dataDir, env });
    try {
      const path = join(dataDir, 'master.key');
      expect(existsSync(path)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(existsSync(join(dataDir, 'pg'))).toBe(true);
      expect(database.masterKeys[0]!.source).toBe('file');
      // An older version stored the person-id key in plain text.
      await database.db.insertInto('server_secrets').values({ name: PERSON_ID_SECRET, value: 'fixed-legacy-person-id-key-0001' }).execute();
      const keys = createServerKeys(database, systemClock);
      // Two: this key, and the webhook-secret key a fresh database's migration 007 created.
      expect(await keys.sealStored()).toBe(2);
      const row = await database.db
        .selectFrom('server_secrets')
        .select('value')
        .where('name', '=', PERSON_ID_SECRET)
        .executeTakeFirstOrThrow();
      expect(row.value.startsWith(`mk1.${database.masterKeys[0]!.id}.`)).toBe(true);
      expect(row.value).not.toContain('fixed-legacy-person-id-key-0001');
      expect(personIds(await createServerKeys(database, systemClock).secret(PERSON_ID_SECRET))).toEqual(FIXED_IDS);
    } finally {
      await database.close();
    }
  }, 180_000);

  it('rotate-master re-wraps under a new key file; person ids stay identical; the old key opens nothing', async () => {
    const oldKeyText = readFileSync(join(dataDir, 'master.key'), 'utf8');
    await rotateMasterCommand(env);
    expect(readFileSync(join(dataDir, 'master.key'), 'utf8')).not.toBe(oldKeyText);
    expect(existsSync(join(dataDir, 'master.key.next'))).toBe(false);
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);

    const database = await openDatabase({ databaseUrl: null, dataDir, env });
    try {
      const id = database.masterKeys[0]!.id;
      for (const row of await database.db.selectFrom('server_secrets').select('value').execute())
        expect(row.value.startsWith(`mk1.${id}.`)).toBe(true);
      expect(personIds(await createServerKeys(database, systemClock).secret(PERSON_ID_SECRET))).toEqual(FIXED_IDS);
      // The old master key (say, from an old backup of the key file) no longer opens the database's keys.
      const stale = createServerKeys(
        { db: database.db, masterKeys: loadMasterKeys({ dataDir: null, env: { ADS_MASTER_KEY: oldKeyText } }) },
        systemClock,
      );
      await expect(stale.secret(PERSON_ID_SECRET)).rejects.toBeInstanceOf(MasterKeyError);
    } finally {
      await database.close();
    }
    // Rolling signing keys leaves the person-id key alone.
    await rollSigningCommand(env);
    const again = await openDatabase({ databaseUrl: null, dataDir, env });
    try {
      expect(personIds(await createServerKeys(again, systemClock).secret(PERSON_ID_SECRET))).toEqual(FIXED_IDS);
    } finally {
      await again.close();
    }
  }, 180_000);

  it('refuses a key file others can read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ads-keys-mode-'));
    loadMasterKeys({ dataDir: dir, env: {} });
    chmodSync(join(dir, 'master.key'), 0o644);
    expect(() => loadMasterKeys({ dataDir: dir, env: {} })).toThrow(/chmod 600/);
  });
});
