/**
 * Access-token verification for every protected resource (REST now; the tool and agent endpoints use the
 * same function): the token must exist (it is deleted when revoked), be unexpired on the service's clock,
 * be bound to this resource, and the approving person must still be an active member with a verified
 * email (spec 5.8, 5.9). The answer is the caller every operation receives.
 */
import type { Caller } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import type { OrganizationService } from '../organizations/index.ts';
import type { RecordStore } from './oidc-provider/record-store.ts';

const RECONNECT = 'Connect again: send the person through GET /v1/oauth/authorize (or the device flow) for a new grant.';

/** An unknown token may be an API-key exchange's as well as an OAuth one: name both ways to a new one. */
const NEW_TOKEN =
  'Get a new access token: exchange your API key at POST /v1/auth/token, or connect again through GET /v1/oauth/authorize (or the device flow).';

export const oauthTokenInvalid = (message: string, nextStep = RECONNECT) => new DomainError('TOKEN_INVALID', message, { nextStep });
export const oauthTokenExpired = () =>
  new DomainError('TOKEN_EXPIRED', 'The OAuth access token has expired (access tokens live 30 minutes).', {
    nextStep: 'Get a new access token at POST /v1/oauth/token with grant_type=refresh_token, or connect again if refresh fails.',
  });

/** An OAuth caller also knows the resource its token is bound to and the person's email (userinfo). */
export interface OAuthCaller extends Caller {
  via: 'oauth';
  resource: string;
  email: string;
}

export function createTokenVerifier(deps: { store: RecordStore; organizations: OrganizationService; clock: Clock }) {
  const { store, organizations, clock } = deps;

  /** Verifies `token` for `expectedResource`; throws TOKEN_INVALID or TOKEN_EXPIRED (spec 7). */
  return async function verifyAccessToken(token: string, expectedResource: string): Promise<OAuthCaller> {
    const row = await store.find('AccessToken', sha256Hex(token));
    if (!row) throw oauthTokenInvalid('The access token is unknown or has been revoked.', NEW_TOKEN);
    const payload = row.payload as { aud?: string; accountId?: string; clientId?: string; scope?: string };
    if (row.expires_at && clock.now().getTime() >= new Date(row.expires_at).getTime()) throw oauthTokenExpired();
    if (payload.aud !== expectedResource) {
      throw oauthTokenInvalid(
        `This access token is bound to another resource (${payload.aud ?? 'none'}); it is not accepted here (${expectedResource}).`,
      );
    }
    const user = payload.accountId ? await organizations.findUserById(payload.accountId) : undefined;
    if (!user || user.status !== 'active' || !user.email_verified_at) {
      throw oauthTokenInvalid('The person who approved this connection is no longer an active, verified member of the organization.');
    }
    return {
      orgId: user.org_id,
      userId: user.id,
      keyId: null,
      scopes: String(payload.scope ?? '')
        .split(' ')
        .filter(Boolean),
      expiresAt: new Date(row.expires_at!),
      via: 'oauth',
      clientId: payload.clientId ?? null,
      resource: expectedResource,
      email: user.email,
    };
  };
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>;
