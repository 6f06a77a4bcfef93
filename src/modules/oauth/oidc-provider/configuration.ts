/**
 * oidc-provider's configuration for spec 5.5-5.12 (ADR 028): which features, which lifetimes, which
 * resources, and the hooks where our rules run (account checks, resource rules, pages).
 */
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthSettings } from '../../../config/index.ts';
import type { OrganizationService } from '../../organizations/index.ts';
import { dynamicClientId } from '../clients/ids.ts';
import { redirectUriProblem } from '../clients/redirect-uris.ts';
import { DEVICE_FLOW_RESOURCES, identityScopeProblem, registeredScope, resourceKindOf, resourceScopes } from '../resources.ts';
import type { ProviderKeys } from './keys.ts';
import type { ProviderPages } from './provider-pages.ts';

/** Lifetimes of spec 5.7 and 8, in seconds. */
export const TTL = {
  accessToken: 30 * 60,
  authorizationCode: 60,
  deviceCode: 10 * 60,
  refreshToken: 90 * 24 * 3600,
  /** A grant outlives the refresh tokens issued under it (refresh stops at 90 days from consent). */
  grant: 91 * 24 * 3600,
  session: 12 * 3600,
  interaction: 3600,
} as const;

/** Polling interval announced by the device authorization endpoint (RFC 8628's default). */
export const DEVICE_POLL_INTERVAL = 5;

/** Paths of the authorization server's endpoints (spec 4.1), relative to the issuer. */
export const OAUTH_ROUTES = {
  authorization: '/v1/oauth/authorize',
  token: '/v1/oauth/token',
  revocation: '/v1/oauth/revoke',
  device_authorization: '/v1/oauth/device_authorization',
  code_verification: '/v1/oauth/device',
  registration: '/v1/oauth/register',
  jwks: '/v1/oauth/jwks',
  userinfo: '/v1/oauth/userinfo',
  end_session: '/v1/oauth/logout',
  introspection: '/v1/oauth/introspect',
  pushed_authorization_request: '/v1/oauth/par',
  backchannel_authentication: '/v1/oauth/backchannel',
  challenge: '/v1/oauth/challenge',
  credential: '/v1/oauth/credential',
} as const;

export const interactionPath = (uid: string) => `/v1/oauth/interaction/${uid}`;

export interface ConfigurationDeps {
  settings: OAuthSettings;
  organizations: OrganizationService;
  keys: ProviderKeys;
  adapter: (model: string) => unknown;
  pages: ProviderPages;
  /** The client-metadata-document transport (the outbound-target policy hook; see clients/metadata-fetch.ts). */
  fetch: (url: URL | string, init: RequestInit) => Promise<Response>;
}

/** The account behind a grant: an active member with a verified email, or nobody (spec 5.9). */
function findAccount(organizations: OrganizationService): Configuration['findAccount'] {
  return async (ctx, sub, token) => {
    checkRefreshResource(ctx, token);
    const user = await organizations.findUserById(sub);
    if (!user || user.status !== 'active' || !user.email_verified_at) return undefined;
    return {
      accountId: user.id,
      async claims(_use, scope) {
        const scopes = new Set(String(scope ?? '').split(' '));
        return { sub: user.id, ...(scopes.has('email') ? { email: user.email, email_verified: true } : {}) };
      },
    };
  };
}

/**
 * A refresh naming a resource must name the granted one exactly (a trailing slash included). The check
 * runs here, before the library rotates the refresh token, so a refused refresh never consumes it.
 */
function checkRefreshResource(ctx: KoaContextWithOIDC, token: unknown): void {
  const oidc = ctx?.oidc;
  if (!oidc || oidc.route !== 'token' || oidc.params?.grant_type !== 'refresh_token') return;
  const requested = oidc.params.resource;
  const granted = (token as { resource?: string | string[] } | undefined)?.resource;
  if (requested === undefined || granted === undefined) return;
  const allowed = Array.isArray(granted) ? granted : [granted];
  const asked = Array.isArray(requested) ? requested : [requested];
  if (asked.some((r) => !allowed.includes(r as string))) {
    throw new errors.InvalidTarget('the resource must be exactly the resource of the grant (no trailing slash, no alias)');
  }
}

export function providerConfiguration(deps: ConfigurationDeps): Configuration {
  const { settings, organizations, keys, pages } = deps;
  const { resources } = settings;
  const secureCookies = settings.issuer.startsWith('https://');
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: secureCookies, overwrite: true };

  return {
    adapter: deps.adapter as never,
    jwks: keys.jwks as never,
    cookies: {
      keys: keys.cookieKeys,
      names: { session: 'ads_session', interaction: 'ads_interaction', resume: 'ads_interaction_resume' },
      long: cookieOptions,
      short: cookieOptions,
    },
    findAccount: findAccount(organizations),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email'],
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'RS256',
    },
    // Our client rules, run by the library on every client it builds (registration, metadata documents,
    // stored clients) before its own checks. Registration is for public clients (spec 5.11); confidential
    // partners are registered by an operator.
    extraClientMetadata: {
      properties: ['token_endpoint_auth_method', 'scope', 'redirect_uris'],
      validator(ctx, key, value, metadata) {
        if (key === 'token_endpoint_auth_method' && ctx?.oidc?.route === 'registration' && value !== 'none') {
          throw new errors.InvalidClientMetadata('dynamic registration is for public clients: token_endpoint_auth_method must be "none"');
        }
        if (key === 'scope') {
          const registered = registeredScope(value);
          if ('problem' in registered) throw new errors.InvalidClientMetadata(registered.problem);
          metadata.scope = registered.scope;
        }
        const problem = key === 'redirect_uris' ? redirectUriProblem(value) : null;
        if (problem) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: problem });
      },
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    clockTolerance: 0,
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the browser session that approved them; the grant governs them instead.
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: TTL.accessToken,
      AuthorizationCode: TTL.authorizationCode,
      DeviceCode: TTL.deviceCode,
      IdToken: TTL.accessToken,
      Grant: TTL.grant,
      Session: TTL.session,
      Interaction: TTL.interaction,
      // Rotation keeps the remaining lifetime: a connection refreshes for 90 days from consent, then reconnects.
      RefreshToken: (ctx) => ctx?.oidc?.entities?.RotatedRefreshToken?.remainingTTL ?? TTL.refreshToken,
    },
    interactions: { url: async (_ctx, interaction) => interactionPath(interaction.uid) },
    renderError: pages.renderError,
    routes: OAUTH_ROUTES,
    discovery: { service_documentation: `${settings.issuer}/docs` },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false }, // served by our route: it answers tokens bound to the tool resource (spec 4.1)
      introspection: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      // A token is revoked only by the client it was issued to.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      registration: { enabled: true, idFactory: dynamicClientId },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: pages.deviceInput,
        userCodeConfirmSource: pages.deviceConfirm,
        successSource: pages.deviceSuccess,
      },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 30, max: 86_400 } } as never,
      resourceIndicators: {
        enabled: true,
        useGrantedResource: async () => true,
        async defaultResource(_ctx, client, oneOf) {
          if (oneOf) return oneOf.length === 1 ? oneOf[0]! : oneOf;
          // Spec 5.6: public clients must name the resource; confidential REST clients default to the API.
          if (client?.clientAuthMethod === 'none') throw new errors.InvalidTarget('resource is required for public clients');
          return resources.api;
        },
        async getResourceServerInfo(ctx, indicator) {
          const kind = resourceKindOf(resources, indicator);
          if (!kind) throw new errors.InvalidTarget(`unknown resource; use one of ${Object.values(resources).join(', ')}`);
          const route = ctx.oidc.route;
          if (route === 'authorization' || route === 'device_authorization') {
            if (Array.isArray(ctx.oidc.params?.resource)) throw new errors.InvalidTarget('request exactly one resource per authorization');
            const scopes = new Set(
              String(ctx.oidc.params?.scope ?? '')
                .split(' ')
                .filter(Boolean),
            );
            const problem = identityScopeProblem(kind, scopes);
            if (problem) throw new errors.InvalidScope(problem, 'openid email');
            if (route === 'device_authorization' && !DEVICE_FLOW_RESOURCES.includes(kind)) {
              throw new errors.InvalidTarget(`the device flow serves ${DEVICE_FLOW_RESOURCES.map((k) => resources[k]).join(' and ')}`);
            }
          }
          return {
            scope: resourceScopes(kind).join(' '),
            audience: indicator,
            accessTokenTTL: TTL.accessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    fetch: deps.fetch as never,
  };
}
