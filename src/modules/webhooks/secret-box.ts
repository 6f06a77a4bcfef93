import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { derivedKey, openValue, sealValue } from '../../lib/sealed.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';

/**
 * Signing secrets at rest (ADR 006). Stored as `wsk1.<base64url(iv ‖ tag ‖ ciphertext)>`: AES-256-GCM
 * under a key derived (HKDF-SHA256) from the server secret `webhook_secret_key` (itself wrapped under the
 * master key in server_secrets, ADR 026), with the owning row
 * as additional data, so a ciphertext copied onto another organization's or subscription's row does
 * not decrypt. Decrypted only to sign an attempt.
 *
 * The format is frozen: migration 007 carries its own copy of `encryptV1` (a shipped migration must not
 * change when this file does). A new format gets a new prefix, and `openSecret` keeps reading the old one.
 */
export const SECRET_KEY_NAME = 'webhook_secret_key';
export const SEALED_PREFIX = 'wsk1.';
const HKDF_INFO = 'webhook-signing-secret/v1';

/** Additional data binding a sealed secret to its row. */
export const orgSecretAad = (orgId: string) => `webhook_settings:${orgId}`;
export const subscriptionSecretAad = (subscriptionId: string) => `webhook_subscriptions:${subscriptionId}`;

export function deriveSecretKey(serverSecretValue: string): Buffer {
  return derivedKey(serverSecretValue, HKDF_INFO);
}

export function encryptV1(key: Buffer, plaintext: string, aad: string): string {
  return SEALED_PREFIX + sealValue(key, plaintext, aad);
}

export function decryptV1(key: Buffer, sealed: string, aad: string): string {
  if (!sealed.startsWith(SEALED_PREFIX)) throw new Error('Webhook secret is not in a known sealed format.');
  return openValue(key, sealed.slice(SEALED_PREFIX.length), aad);
}

/** Start and end of a plain-text secret, stored beside the ciphertext so views never decrypt. */
export const secretHint = (secret: string) => `${secret.slice(0, 6)}…${secret.slice(-4)}`;

/** Seals and opens signing secrets with the deployment's key (read once). */
export function createSecretBox(db: Kysely<DB>, serverKeys: Pick<ServerKeys, 'secret'>) {
  let cached: Promise<Buffer> | null = null;
  /**
   * The key, read through `executor` when given a caller's transaction and nothing is cached yet: on the
   * embedded store a read outside an open transaction would wait for it. Such a read is not cached,
   * because the transaction may yet roll back the server secret it created.
   */
  async function key(executor: Kysely<DB> = db): Promise<Buffer> {
    if (cached) return cached;
    if (executor !== db) return deriveSecretKey(await serverKeys.secret(SECRET_KEY_NAME, executor));
    const k = serverKeys.secret(SECRET_KEY_NAME).then(deriveSecretKey);
    // A failed read (database unreachable) is not cached: the next call tries again.
    k.catch(() => {
      cached = null;
    });
    cached = k;
    return k;
  }
  return {
    async seal(plaintext: string, aad: string, executor?: Kysely<DB>): Promise<string> {
      return encryptV1(await key(executor), plaintext, aad);
    },
    /**
     * The plain-text secret, or null if the value is not a sealed secret or does not authenticate (wrong
     * key or wrong row). Throws only if the key cannot be read (e.g. the database is unreachable).
     */
    async open(sealed: string, aad: string): Promise<string | null> {
      const k = await key();
      try {
        return decryptV1(k, sealed, aad);
      } catch {
        return null;
      }
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
