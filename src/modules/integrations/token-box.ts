/**
 * Provider tokens at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret
 * `integration_token_key` (itself wrapped under the master key in server_secrets, ADR 026, so rotating
 * the master key re-wraps it and these stay readable). Stored as `itk1.<base64url(iv ‖ tag ‖ ciphertext)>`
 * with `integration_connections:<id>:<access|refresh>` as additional data: a ciphertext copied onto
 * another connection's row, or from one column to the other, does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { ServerKeys } from '../../lib/server-secrets.ts';

export const TOKEN_KEY_NAME = 'integration_token_key';
const PREFIX = 'itk1.';

export const tokenAad = (connectionId: string, which: 'access' | 'refresh') => `integration_connections:${connectionId}:${which}`;

export function createTokenBox(keys: Pick<ServerKeys, 'secret'>) {
  let key: Promise<Buffer> | null = null;
  const derived = () => {
    if (!key) {
      key = keys.secret(TOKEN_KEY_NAME).then((s) => Buffer.from(hkdfSync('sha256', Buffer.from(s, 'utf8'), Buffer.alloc(0), 'integration-provider-token/v1', 32)));
      key.catch(() => { key = null; });
    }
    return key;
  };
  return {
    async seal(plaintext: string, aad: string): Promise<string> {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', await derived(), iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
    },
    async open(sealed: string, aad: string): Promise<string> {
      if (!sealed.startsWith(PREFIX)) throw new Error('provider token is not in a known sealed format');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', await derived(), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

export type TokenBox = ReturnType<typeof createTokenBox>;
