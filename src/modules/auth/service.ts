import type { Clock } from '../../lib/clock.ts';
import { Errors } from '../../http/errors.ts';
import type { ApiKeyService } from '../api-keys/service.ts';
import type { OrganizationService } from '../organizations/service.ts';
import { signAccessToken, verifyAccessToken } from './bearer-token.ts';
import { hasScope, type Scope } from './scopes.ts';

/** Bearer lifetime of spec section 5.2. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** Who is calling: the organization, the user the credential acts for, and what it may do. */
export interface Principal {
  orgId: string;
  userId: string;
  keyId: string | null;
  scopes: string[];
  /** When the credential stops working. */
  expiresAt: Date;
  via: 'api_key' | 'oauth';
}

export function createAuthService(deps: {
  apiKeys: ApiKeyService;
  organizations: OrganizationService;
  clock: Clock;
  tokenSecret: string;
}) {
  const { apiKeys, organizations, clock, tokenSecret } = deps;
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  // Verified tokens by their text: a hit skips the HMAC and JSON parse; expiry is still checked
  // on every call. Bounded by clearing when full (tokens are re-verified, never trusted blindly).
  const verified = new Map<string, Principal & { exp: number }>();
  const MAX_CACHED = 10_000;

  return {
    /** POST /v1/auth/token: an active API key of an active user becomes a one-hour bearer. */
    async exchangeApiKey(rawKey: string) {
      const key = await apiKeys.findActiveByRawKey(rawKey.trim());
      if (!key) {
        throw Errors.tokenInvalid('The API key is unknown or has been deactivated.');
      }
      const user = await organizations.findUser(key.org_id, key.user_id);
      if (!user || user.status !== 'active') throw Errors.tokenInvalid('The user this API key acts for is no longer active.');
      const iat = nowSeconds();
      const accessToken = signAccessToken(
        { org: key.org_id, sub: key.user_id, kid: key.id, scopes: key.scopes, iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS },
        tokenSecret,
      );
      void apiKeys.touch(key.id).catch(() => {});
      return { access_token: accessToken, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS };
    },

    /** Verifies a bearer without touching the database (it runs on every request). */
    authenticate(authorization: string | undefined): Principal {
      const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
      if (!match) throw Errors.tokenInvalid('Send Authorization: Bearer <access_token>.');
      const cached = verified.get(match[1]!);
      if (cached) {
        if (nowSeconds() >= cached.exp) throw Errors.tokenExpired();
        return cached;
      }
      const check = verifyAccessToken(match[1]!, tokenSecret, nowSeconds());
      if (!check.ok) {
        if (check.reason === 'expired') throw Errors.tokenExpired();
        throw Errors.tokenInvalid(
          match[1]!.startsWith('ads_live_')
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
      verified.set(match[1]!, principal);
      return principal;
    },

    authorize(principal: Principal, scope: Scope): void {
      if (!hasScope(principal.scopes, scope)) throw Errors.scopeRequired(scope);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
