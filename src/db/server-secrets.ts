import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { MasterKey } from './master-key.ts';
import { isWrapped, unwrapValue, wrapValue } from './master-key.ts';
import type { DB } from './schema.ts';
import type { Clock } from '../lib/clock.ts';

/**
 * Server-side keys (token signing, object URLs, person ids, webhook secrets) live in the control plane so
 * that every API and worker process sharing the database uses the same ones, each wrapped under the
 * master key (src/db/master-key.ts, ADR 026): the table holds `mk1.<master key id>.<ciphertext>` with
 * `server_secrets:<name>` as additional data. Created on first use.
 *
 * Signing keys roll (`ads keys roll-signing`): the current row gets a new key and the old one stays
 * under `<name>@<time>` until `retires_at`, one token or URL lifetime later, so everything signed
 * before the roll still verifies until it expires anyway. The person-id key never rolls.
 */

/** server_secrets names. The person-id key: every process and every matching path must share it, and it is never rotated. */
export const PERSON_ID_SECRET = 'iag_person_id';
export const ACCESS_TOKEN_SECRET = 'access_token_hmac';
export const OBJECT_URL_SECRET = 'object_url_hmac';

/** The longest a bearer from the API-key exchange may live (spec 5.2); verification refuses longer ones. */
export const ACCESS_TOKEN_MAX_SECONDS = 3600;
/** The longest a signed object URL may live (a refreshed upload URL, 24 h); verification refuses longer ones. */
export const OBJECT_URL_MAX_SECONDS = 24 * 3600;

/** Keys that roll, and how long a rolled-out key still verifies: one lifetime of what it signed. */
export const SIGNING_KEY_OVERLAP_SECONDS: Record<string, number> = {
  [ACCESS_TOKEN_SECRET]: ACCESS_TOKEN_MAX_SECONDS,
  [OBJECT_URL_SECRET]: OBJECT_URL_MAX_SECONDS,
};

/** How long a process uses the signing keys it read before reading them again (a roll reaches it within this). */
const SIGNING_REFRESH_MS = 30_000;

const baseName = (name: string) => name.split('@')[0]!;
export const serverSecretAad = (name: string) => `server_secrets:${baseName(name)}`;
export const oauthSecretAad = (name: string) => `oauth_secrets:${name}`;
const randomSecret = () => randomBytes(32).toString('base64url');

/** The keys a signer signs with (the first) and a verifier accepts (all), read together. */
export interface SigningKeyRing {
  /** Current key first, then rolled-out keys still inside their overlap. */
  keys(): Promise<string[]>;
  /** Reads the keys again now (a verifier that met an unknown signature does, at most every few seconds). */
  reload(): Promise<string[]>;
}

export function createServerKeys(database: { db: Kysely<DB>; masterKeys: readonly MasterKey[] }, clock: Clock) {
  const { db, masterKeys } = database;
  if (masterKeys.length === 0) throw new Error('The database was opened without a master key.');
  const current = masterKeys[0]!;
  const fixed = new Map<string, Promise<string>>();

  const open = (name: string, stored: string) => (isWrapped(stored) ? unwrapValue(masterKeys, stored, serverSecretAad(name)) : stored);

  async function readOrCreate(executor: Kysely<DB>, name: string): Promise<string> {
    await executor
      .insertInto('server_secrets')
      .values({ name, value: wrapValue(current, randomSecret(), serverSecretAad(name)) })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await executor.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return open(name, row.value);
  }

  function signingRing(name: string): SigningKeyRing {
    let loaded: { at: number; keys: Promise<string[]> } | null = null;
    let lastMiss = 0;
    async function read(): Promise<string[]> {
      const primary = await readOrCreate(db, name);
      const rolled = await db
        .selectFrom('server_secrets')
        .select(['name', 'value'])
        .where('name', 'like', `${name}@%`)
        .where('retires_at', '>', clock.now())
        .orderBy('name', 'desc')
        .execute();
      return [primary, ...rolled.map((r) => open(r.name, r.value))];
    }
    const reload = () => {
      const previous = loaded;
      // A failed read (database unreachable, or the keys re-wrapped under a master key this process does
      // not have yet) keeps the keys already read, if any, and tries again at the next reload.
      const keys = read().catch((error: unknown) => {
        if (previous) return previous.keys;
        loaded = null;
        throw error;
      });
      loaded = { at: Date.now(), keys };
      return keys;
    };
    return {
      keys: () => (loaded && Date.now() - loaded.at < SIGNING_REFRESH_MS ? loaded.keys : reload()),
      // At most one read every 2 s on misses, so a flood of forged signatures cannot flood the database.
      reload: () => {
        if (loaded && Date.now() - lastMiss < 2000) return loaded.keys;
        lastMiss = Date.now();
        return reload();
      },
    };
  }
  const rings = new Map<string, SigningKeyRing>();

  return {
    masterKeyId: current.id,
    /**
     * A key that never rolls (person ids, the webhook-secret key). Read through `executor` (a caller's
     * transaction) when given and not cached: such a read is not cached, the transaction may roll back.
     */
    secret(name: string, executor?: Kysely<DB>): Promise<string> {
      if (executor && executor !== db && !fixed.has(name)) return readOrCreate(executor, name);
      let value = fixed.get(name);
      if (!value) {
        value = readOrCreate(db, name);
        fixed.set(name, value);
        // A failed read (database unreachable) is not cached: the next call tries again.
        value.catch(() => fixed.delete(name));
      }
      return value;
    },
    /** The ring of a rolling signing key (ACCESS_TOKEN_SECRET, OBJECT_URL_SECRET). */
    signing(name: string): SigningKeyRing {
      let ring = rings.get(name);
      if (!ring) rings.set(name, (ring = signingRing(name)));
      return ring;
    },
    /** Seals values stored before keys were wrapped (an upgrade), so no key is left in plain text. */
    async sealStored(): Promise<number> {
      let sealed = 0;
      await db.transaction().execute(async (trx) => {
        for (const row of await trx.selectFrom('server_secrets').select(['name', 'value']).execute()) {
          if (isWrapped(row.value)) continue;
          await trx
            .updateTable('server_secrets')
            .set({ value: wrapValue(current, row.value, serverSecretAad(row.name)) })
            .where('name', '=', row.name)
            .execute();
          sealed++;
        }
        for (const row of await trx.selectFrom('oauth_secrets').select(['name', 'value']).execute()) {
          if (!row.value.startsWith('plain:')) continue;
          const value = wrapValue(current, row.value.slice('plain:'.length), oauthSecretAad(row.name));
          await trx.updateTable('oauth_secrets').set({ value }).where('name', '=', row.name).execute();
          sealed++;
        }
      });
      return sealed;
    },
    /** The OAuth area's SecretCodec: its stored secrets wrapped the same way. */
    codec: {
      async seal(plaintext: string, name: string) {
        return wrapValue(current, plaintext, oauthSecretAad(name));
      },
      async open(stored: string, name: string) {
        return stored.startsWith('plain:') ? stored.slice('plain:'.length) : unwrapValue(masterKeys, stored, oauthSecretAad(name));
      },
    },
  };
}

export type ServerKeys = ReturnType<typeof createServerKeys>;

/** `ads keys roll-signing`: new signing keys; the old ones verify for one lifetime more. Returns the names rolled. */
export async function rollSigningKeys(database: { db: Kysely<DB>; masterKeys: readonly MasterKey[] }, now: Date): Promise<string[]> {
  const current = database.masterKeys[0]!;
  const rolled: string[] = [];
  await database.db.transaction().execute(async (trx) => {
    for (const [name, overlap] of Object.entries(SIGNING_KEY_OVERLAP_SECONDS)) {
      await trx.deleteFrom('server_secrets').where('name', 'like', `${name}@%`).where('retires_at', '<=', now).execute();
      const row = await trx.selectFrom('server_secrets').select('value').where('name', '=', name).forUpdate().executeTakeFirst();
      const fresh = wrapValue(current, randomSecret(), serverSecretAad(name));
      if (row) {
        await trx
          .insertInto('server_secrets')
          .values({ name: `${name}@${now.toISOString()}`, value: row.value, retires_at: new Date(now.getTime() + overlap * 1000) })
          .execute();
        await trx.updateTable('server_secrets').set({ value: fresh }).where('name', '=', name).execute();
      } else {
        await trx.insertInto('server_secrets').values({ name, value: fresh }).execute();
      }
      rolled.push(name);
    }
  });
  return rolled;
}

/**
 * `ads keys rotate-master`: every key the database holds, re-wrapped under `next` in one transaction.
 * `database.masterKeys` must include the key they are wrapped under now. Returns how many were re-wrapped.
 */
export async function rewrapUnderMasterKey(
  database: { db: Kysely<DB>; masterKeys: readonly MasterKey[] },
  next: MasterKey,
): Promise<number> {
  let count = 0;
  await database.db.transaction().execute(async (trx) => {
    const secrets = await trx.selectFrom('server_secrets').select(['name', 'value']).forUpdate().execute();
    for (const row of secrets) {
      const plain = isWrapped(row.value) ? unwrapValue(database.masterKeys, row.value, serverSecretAad(row.name)) : row.value;
      await trx
        .updateTable('server_secrets')
        .set({ value: wrapValue(next, plain, serverSecretAad(row.name)) })
        .where('name', '=', row.name)
        .execute();
      count++;
    }
    for (const row of await trx.selectFrom('oauth_secrets').select(['name', 'value']).forUpdate().execute()) {
      const plain = row.value.startsWith('plain:')
        ? row.value.slice('plain:'.length)
        : unwrapValue(database.masterKeys, row.value, oauthSecretAad(row.name));
      await trx
        .updateTable('oauth_secrets')
        .set({ value: wrapValue(next, plain, oauthSecretAad(row.name)) })
        .where('name', '=', row.name)
        .execute();
      count++;
    }
  });
  return count;
}

/** Rows still wrapped under another master key than `id` (0 once a rotation is complete). */
export async function rowsNotUnder(db: Kysely<DB>, id: string): Promise<number> {
  const prefix = `mk1.${id}.`;
  const { rows } = await sql<{ n: string | number }>`select
      (select count(*) from server_secrets where left(value, ${prefix.length}) <> ${prefix})
    + (select count(*) from oauth_secrets where left(value, ${prefix.length}) <> ${prefix}) as n`.execute(db);
  return Number(rows[0]!.n);
}
