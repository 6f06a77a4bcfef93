/**
 * Provider tokens at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret
 * `integration_token_key` (itself wrapped under the master key in server_secrets, ADR 026, so rotating
 * the master key re-wraps it and these stay readable). Stored as `itk1.<base64url(iv ‖ tag ‖ ciphertext)>`
 * with `integration_connections:<id>:<access|refresh>` as additional data: a ciphertext copied onto
 * another connection's row, or from one column to the other, does not open.
 */
import { cachedDerivedKey, openValue, sealValue } from '../../lib/sealed.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';

export const TOKEN_KEY_NAME = 'integration_token_key';
const PREFIX = 'itk1.';

export const tokenAad = (connectionId: string, which: 'access' | 'refresh') => `integration_connections:${connectionId}:${which}`;

export function createTokenBox(keys: Pick<ServerKeys, 'secret'>) {
  const derived = cachedDerivedKey((name) => keys.secret(name), TOKEN_KEY_NAME, 'integration-provider-token/v1');
  return {
    async seal(plaintext: string, aad: string): Promise<string> {
      return PREFIX + sealValue(await derived(), plaintext, aad);
    },
    async open(sealed: string, aad: string): Promise<string> {
      if (!sealed.startsWith(PREFIX)) throw new Error('provider token is not in a known sealed format');
      return openValue(await derived(), sealed.slice(PREFIX.length), aad);
    },
  };
}

export type TokenBox = ReturnType<typeof createTokenBox>;
