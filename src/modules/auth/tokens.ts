import { randomBytes } from 'node:crypto';
import { hmacSha256, safeEqual } from '../../lib/crypto.ts';

/**
 * Access tokens from the API-key exchange: `ads_at.<payload>.<signature>`, base64url JSON payload
 * signed with HMAC-SHA256 under a server secret. They are checked without a database read (so a
 * deactivated key's tokens live until they expire, at most an hour, as spec section 5 says).
 */
export const ACCESS_TOKEN_PREFIX = 'ads_at';

export interface AccessTokenClaims {
  /** organization id */
  org: string;
  /** user the key acts for */
  sub: string;
  /** API key id */
  kid: string;
  scopes: string[];
  /** issued at / expires at, seconds since the epoch */
  iat: number;
  exp: number;
  jti: string;
}

export type TokenCheck = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: 'invalid' | 'expired' };

export function signAccessToken(claims: Omit<AccessTokenClaims, 'jti'>, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ ...claims, jti: randomBytes(9).toString('base64url') })).toString('base64url');
  const signature = hmacSha256(secret, `${ACCESS_TOKEN_PREFIX}.${payload}`).toString('base64url');
  return `${ACCESS_TOKEN_PREFIX}.${payload}.${signature}`;
}

/**
 * Checks the signature under any of `secrets` (the current signing key and those rolled out within one
 * token lifetime), then the claims. A token claiming to live longer than `maxLifetimeSeconds`, or issued
 * in the future, is invalid whatever its signature: a leaked signing key cannot mint long-lived bearers.
 */
export function verifyAccessToken(token: string, secrets: readonly string[], nowSeconds: number, maxLifetimeSeconds: number): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== ACCESS_TOKEN_PREFIX) return { ok: false, reason: 'invalid' };
  const signed = `${parts[0]}.${parts[1]}`;
  if (!secrets.some((secret) => safeEqual(hmacSha256(secret, signed).toString('base64url'), parts[2]!)))
    return { ok: false, reason: 'invalid' };
  let claims: AccessTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || !Array.isArray(claims.scopes))
    return { ok: false, reason: 'invalid' };
  // A minute of clock skew between processes is tolerated.
  if (claims.exp - claims.iat > maxLifetimeSeconds || claims.iat > nowSeconds + 60) return { ok: false, reason: 'invalid' };
  if (nowSeconds >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}
