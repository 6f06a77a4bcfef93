import type { Clock } from '../../lib/clock.ts';
import type { Caller } from '../../core/caller.ts';
import { CommonErrors } from '../../core/errors.ts';
import type { OrganizationService } from '../organizations/index.ts';
import type { ApiKeyService } from './api-keys.ts';
import { ACCESS_TOKEN_PREFIX, signAccessToken, verifyAccessToken } from './tokens.ts';
import { API_KEY_PREFIX } from './api-keys.ts';
import { ACCESS_TOKEN_MAX_SECONDS, type SigningKeyRing } from '../../db/server-secrets.ts';

/** Checks an OAuth access token for the REST API resource (the oauth area provides it). */
export type OAuthBearerVerifier = (token: string) => Promise<Caller>;

/** Bearer lifetime of spec section 5.2. */
export const ACCESS_TOKEN_TTL_SECONDS = ACCESS_TOKEN_MAX_SECONDS;

export function createAuthService(deps: {
  apiKeys: ApiKeyService;
  organizations: OrganizationService;
  clock: Clock;
  /** The bearer signing keys (current first; rolled-out ones verify for one token lifetime). */
  tokenKeys: SigningKeyRing;
  /** OAuth access tokens are accepted beside API-key bearers when given (spec 5.5). */
  oauthBearer?: OAuthBearerVerifier;
}) {
  const { apiKeys, organizations, clock, tokenKeys, oauthBearer } = deps;
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  // Verified tokens by their text: a hit skips the HMAC and JSON parse; expiry is still checked
  // on every call. Bounded by clearing when full (tokens are re-verified, never trusted blindly).
  const verified = new Map<string, Caller & { exp: number }>();
  const MAX_CACHED = 10_000;

  const service = {
    /** POST /v1/auth/token: an active API key of an active user becomes a one-hour bearer. */
    async exchangeApiKey(rawKey: string) {
      const key = await apiKeys.findActiveByRawKey(rawKey.trim());
      if (!key) {
        throw CommonErrors.tokenInvalid('The API key is unknown or has been deactivated.');
      }
      const user = await organizations.findUser(key.org_id, key.user_id);
      if (!user || user.status !== 'active') throw CommonErrors.tokenInvalid('The user this API key acts for is no longer active.');
      const iat = nowSeconds();
      const accessToken = signAccessToken(
        { org: key.org_id, sub: key.user_id, kid: key.id, scopes: key.scopes, iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS },
        (await tokenKeys.keys())[0]!,
      );
      void apiKeys.touch(key.id).catch(() => {});
      return { access_token: accessToken, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS };
    },

    /**
     * Verifies a bearer. An API-key bearer is checked without touching the database (it runs on every
     * request); anything else is an OAuth access token, looked up by the oauth area. The tool and agent
     * endpoints pass their own OAuth verifier (bound to their resource); API-key bearers work everywhere.
     */
    authenticate(authorization: string | undefined, oauthFor: OAuthBearerVerifier | undefined = oauthBearer): Caller | Promise<Caller> {
      const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
      if (!match) throw CommonErrors.tokenInvalid('Send Authorization: Bearer <access_token>.');
      const token = match[1]!;
      if (oauthFor && !token.startsWith(`${ACCESS_TOKEN_PREFIX}.`) && !token.startsWith(API_KEY_PREFIX)) return oauthFor(token);
      const cached = verified.get(match[1]!);
      if (cached) {
        if (nowSeconds() >= cached.exp) throw CommonErrors.tokenExpired();
        return cached;
      }
      return verifyBearer(token);
    },
  };
  return service;

  /** Signature under a known key, then claims; a key rolled in by another process is read once on a miss. */
  async function verifyBearer(token: string): Promise<Caller> {
    let check = verifyAccessToken(token, await tokenKeys.keys(), nowSeconds(), ACCESS_TOKEN_MAX_SECONDS);
    if (!check.ok && check.reason === 'invalid')
      check = verifyAccessToken(token, await tokenKeys.reload(), nowSeconds(), ACCESS_TOKEN_MAX_SECONDS);
    if (!check.ok) {
      if (check.reason === 'expired') throw CommonErrors.tokenExpired();
      throw CommonErrors.tokenInvalid(
        token.startsWith('ads_live_')
          ? 'An API key is not a bearer token: exchange it at POST /v1/auth/token first.'
          : 'The bearer token is malformed or revoked.',
      );
    }
    const { claims } = check;
    const principal = {
      orgId: claims.org,
      userId: claims.sub,
      keyId: claims.kid,
      scopes: claims.scopes,
      via: 'api_key' as const,
      expiresAt: new Date(claims.exp * 1000),
      exp: claims.exp,
    };
    if (verified.size >= MAX_CACHED) verified.clear();
    verified.set(token, principal);
    return principal;
  }
}

export type AuthService = ReturnType<typeof createAuthService>;
