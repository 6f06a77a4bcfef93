import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The one place the OAuth area keeps secrets it must read back: the OIDC signing keys, the cookie and
 * CSRF keys, and the secrets of pre-registered confidential clients. Every value goes through a codec on
 * its way in and out, with the secret's name as additional data, so envelope encryption under a master
 * key is a codec swap (see `SecretCodec`), not a change here or in the callers.
 */
export interface SecretCodec {
  /** Turns a plain value into what is stored. `name` binds the stored value to its row. */
  seal(plaintext: string, name: string): Promise<string>;
  /** The plain value of a stored one; throws when it does not authenticate. */
  open(stored: string, name: string): Promise<string>;
}

/** Stores values as they are, marked so a later codec can tell them from sealed ones. */
export const plainCodec: SecretCodec = {
  async seal(plaintext) {
    return `plain:${plaintext}`;
  },
  async open(stored) {
    if (!stored.startsWith('plain:')) throw new Error('An OAuth secret is stored in a format this codec cannot read.');
    return stored.slice('plain:'.length);
  },
};

export function createSecretStore(db: Kysely<DB>, codec: SecretCodec = plainCodec) {
  async function read(name: string, executor: Kysely<DB> = db): Promise<string | null> {
    const row = await executor.selectFrom('oauth_secrets').select('value').where('name', '=', name).executeTakeFirst();
    return row ? codec.open(row.value, name) : null;
  }

  return {
    read,
    async write(name: string, value: string, executor: Kysely<DB> = db): Promise<void> {
      const sealed = await codec.seal(value, name);
      await executor
        .insertInto('oauth_secrets')
        .values({ name, value: sealed })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value: sealed }))
        .execute();
    },
    async remove(name: string): Promise<void> {
      await db.deleteFrom('oauth_secrets').where('name', '=', name).execute();
    },
    /**
     * The secret under `name`, created by `make` on first use. Concurrent first uses by several processes
     * agree: the first insert wins and everyone reads it back.
     */
    async getOrCreate(name: string, make: () => string): Promise<string> {
      const existing = await read(name);
      if (existing !== null) return existing;
      const sealed = await codec.seal(make(), name);
      await db
        .insertInto('oauth_secrets')
        .values({ name, value: sealed })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      return (await read(name))!;
    },
  };
}

export type SecretStore = ReturnType<typeof createSecretStore>;

export const randomKey = () => randomBytes(32).toString('base64url');
