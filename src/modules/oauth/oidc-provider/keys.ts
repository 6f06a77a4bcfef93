import { createHash, generateKeyPairSync } from 'node:crypto';
import type { SecretStore } from '../secrets.ts';
import { randomKey } from '../secrets.ts';

/** Names of the OAuth area's server secrets in the secret store. */
export const SIGNING_KEYS_SECRET = 'oidc-signing-jwks';
export const COOKIE_KEYS_SECRET = 'oidc-cookie-keys';
export const CSRF_KEY_SECRET = 'page-csrf-key';

export interface ProviderKeys {
  /** Private JWKs (RS256) that sign id_tokens; the public halves are served at the JWKS endpoint. */
  jwks: { keys: Record<string, unknown>[] };
  /** Keys that sign the provider's cookies (newest first). */
  cookieKeys: string[];
  /** Key of the CSRF tokens in our own forms. */
  csrfKey: string;
}

/** An RSA-2048 signing key as a private JWK with a thumbprint-derived `kid`. */
export function newSigningKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  // RFC 7638 thumbprint of the public members, as the key id.
  const kid = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return { ...jwk, kid, alg: 'RS256', use: 'sig' };
}

/** Reads the provider's keys, creating them on first use (every process sharing the database agrees). */
export async function loadProviderKeys(secrets: SecretStore): Promise<ProviderKeys> {
  const jwks = JSON.parse(await secrets.getOrCreate(SIGNING_KEYS_SECRET, () => JSON.stringify({ keys: [newSigningKey()] })));
  const cookieKeys = JSON.parse(await secrets.getOrCreate(COOKIE_KEYS_SECRET, () => JSON.stringify([randomKey()])));
  const csrfKey = await secrets.getOrCreate(CSRF_KEY_SECRET, randomKey);
  return { jwks, cookieKeys, csrfKey };
}
