/**
 * OAuth 2.1 and OpenID Connect for partner apps and agents (spec 4.1, 5.5-5.12): the authorization
 * server (oidc-provider), sign-in and consent, people and their invitations, OAuth grants for owners,
 * and the access-token verifier every protected resource uses.
 *
 * Other areas use: `verifyAccessToken(token, expectedResource)` (the tool and agent endpoints pass
 * their resource URL), `protectedResourceMetadata` / `bearerChallenge` for RFC 9728, and the settings'
 * `resources`. Hooks for the security work: `secretCodec` (how OAuth secrets are sealed at rest: wrapped
 * under the master key, ADR 026) and
 * `metadataTransport` (how client metadata documents are fetched: the outbound-target policy).
 */
import type { Kysely } from 'kysely';
import type { OAuthSettings } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OrganizationService } from '../organizations/index.ts';
import { defaultMetadataTransport, metadataFetch, type MetadataTransport } from './clients/metadata-fetch.ts';
import { clientStanding, registerPartnerClient, type PartnerClientInput } from './clients/partners.ts';
import { createGrantService } from './grants/service.ts';
import { createInteractionService } from './interactions.ts';
import { oauthOperations } from './operations.ts';
import { createMailer } from './people/mail.ts';
import { createPeopleService } from './people/service.ts';
import { loadProviderKeys } from './oidc-provider/keys.ts';
import { createProvider } from './oidc-provider/provider.ts';
import { createRecordStore } from './oidc-provider/record-store.ts';
import { createSecretStore, type SecretCodec } from './secrets.ts';
import { createTokenVerifier } from './verify.ts';

export const OAUTH_SWEEP_JOB = 'oauth.sweep';
/** Hourly: drop codes, tokens and sessions a day past their expiry. */
export const OAUTH_SWEEP_CRON = '17 * * * *';

export interface OAuthModuleDeps {
  db: Kysely<DB>;
  organizations: OrganizationService;
  clock: Clock;
  settings: OAuthSettings;
  /** How OAuth secrets are stored (default: as they are, marked `plain:`); the master-key work swaps it. */
  secretCodec: SecretCodec;
  /** Transport of client metadata document fetches (default: the library's SSRF-guarded fetch). */
  metadataTransport?: MetadataTransport;
  log?: { warn(obj: object, msg: string): void };
}

export async function createOAuthModule(deps: OAuthModuleDeps) {
  const { db, organizations, clock, settings } = deps;
  const secrets = createSecretStore(db, deps.secretCodec);
  const keys = await loadProviderKeys(secrets);
  const store = createRecordStore(db);
  const provider = createProvider({
    settings,
    clock,
    organizations,
    store,
    secrets,
    keys,
    fetch: metadataFetch(deps.metadataTransport ?? defaultMetadataTransport),
  });
  const verifyAccessToken = createTokenVerifier({ store, organizations, clock });
  const grants = createGrantService({ store, organizations, clock });
  const mailer = createMailer({ db, clock, smtpUrl: settings.smtpUrl, from: settings.mailFrom, log: deps.log });
  const people = createPeopleService({
    db,
    organizations,
    grants,
    mailer,
    clock,
    issuer: settings.issuer,
    invitationTtlHours: settings.invitationTtlHours,
  });
  const interactions = createInteractionService({ provider, organizations, grants, settings });

  const sweep: JobDefinition = {
    name: OAUTH_SWEEP_JOB,
    queue: { retryLimit: 2, retryDelay: 60 },
    handle: async () => ({ deleted: await store.sweep(clock.now()) }),
  };

  return {
    settings,
    provider,
    keys,
    secrets,
    verifyAccessToken,
    /** The REST API's check of an OAuth bearer (auth's `authenticate` calls it). */
    verifyApiToken: (token: string) => verifyAccessToken(token, settings.resources.api),
    grants,
    people,
    mailer,
    interactions,
    operations: oauthOperations({ grants, people }),
    /** Registers a partner client (the operator's CLI); the secret is in the answer only. */
    registerPartnerClient: (input: PartnerClientInput) => registerPartnerClient(provider, input),
    /** Whether a token's client is a pre-registered (partner) and confidential client (integration execution keys). */
    clientStanding: (clientId: string) => clientStanding(store, clientId),
    jobDefinitions: (): JobDefinition[] => [sweep],
  };
}

export type OAuthModule = Awaited<ReturnType<typeof createOAuthModule>>;

export { bearerChallenge, protectedResourceMetadata, resourceMetadataUrl } from './protected-resource.ts';
export { DEVICE_FLOW_RESOURCES, PRODUCT_SCOPES, IDENTITY_SCOPES, resourceKindOf, type ResourceKind } from './resources.ts';
export { OAUTH_ROUTES, TTL as OAUTH_TTL, interactionPath } from './oidc-provider/configuration.ts';
export { oauthTokenInvalid, oauthTokenExpired, type OAuthCaller, type TokenVerifier } from './verify.ts';
export { plainCodec, type SecretCodec } from './secrets.ts';
export type { ClientStanding } from './clients/partners.ts';
export { defaultMetadataTransport, type MetadataTransport } from './clients/metadata-fetch.ts';
export { csrfToken, csrfValid, sameOrigin, cookieValue } from './pages/csrf.ts';
export { PAGE_CSP } from './pages/html.ts';
export * as oauthPages from './pages/views.ts';
export { invitationPath } from './people/service.ts';
