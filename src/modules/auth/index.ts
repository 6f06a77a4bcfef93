/**
 * Keys and tokens: API keys (owned here), their exchange for one-hour bearers, and the bearer check
 * every transport uses to turn an Authorization header into a caller.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SigningKeyRing } from '../../db/server-secrets.ts';
import type { OrganizationService } from '../organizations/index.ts';
import { createApiKeyStore } from './api-key-store.ts';
import { createApiKeyService } from './api-keys.ts';
import { authOperations } from './operations.ts';
import { createAuthService, type OAuthBearerVerifier } from './service.ts';

/** API keys alone (the CLI issues keys without the token machinery). */
export function createApiKeys(deps: { db: Kysely<DB>; organizations: OrganizationService; clock: Clock }) {
  return createApiKeyService({ store: createApiKeyStore(deps.db), organizations: deps.organizations, clock: deps.clock });
}

export function createAuthModule(deps: {
  db: Kysely<DB>;
  organizations: OrganizationService;
  clock: Clock;
  tokenKeys: SigningKeyRing;
  oauthBearer?: OAuthBearerVerifier;
}) {
  const apiKeys = createApiKeys(deps);
  const auth = createAuthService({
    apiKeys,
    organizations: deps.organizations,
    clock: deps.clock,
    tokenKeys: deps.tokenKeys,
    oauthBearer: deps.oauthBearer,
  });
  return { auth, apiKeys, operations: authOperations({ auth, apiKeys }) };
}

export { API_KEY_PREFIX, hashApiKey, type ApiKeyService } from './api-keys.ts';
export { ACCESS_TOKEN_TTL_SECONDS, type AuthService, type OAuthBearerVerifier } from './service.ts';
