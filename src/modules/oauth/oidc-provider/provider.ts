/**
 * Builds the authorization server (oidc-provider, a Koa app) and the one middleware that adds what the
 * library leaves out: `interval` on device authorization, `slow_down` for device polls that come too
 * fast, our scopes and userinfo endpoint in the discovery metadata.
 */
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthSettings } from '../../../config/index.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { OrganizationService } from '../../organizations/index.ts';
import { ADVERTISED_SCOPES } from '../resources.ts';
import type { SecretStore } from '../secrets.ts';
import { createAdapterFactory } from './adapter.ts';
import { DEVICE_POLL_INTERVAL, OAUTH_ROUTES, providerConfiguration } from './configuration.ts';
import type { ProviderKeys } from './keys.ts';
import { providerPages } from './provider-pages.ts';
import type { RecordStore } from './record-store.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface ProviderDeps {
  settings: OAuthSettings;
  clock: Clock;
  organizations: OrganizationService;
  store: RecordStore;
  secrets: SecretStore;
  keys: ProviderKeys;
  fetch: (url: URL | string, init: RequestInit) => Promise<Response>;
}

export function createProvider(deps: ProviderDeps): Provider {
  const adapter = createAdapterFactory({ store: deps.store, secrets: deps.secrets, clock: deps.clock });
  const provider = new Provider(
    deps.settings.issuer,
    providerConfiguration({
      settings: deps.settings,
      organizations: deps.organizations,
      keys: deps.keys,
      adapter,
      pages: providerPages,
      fetch: deps.fetch,
    }),
  );
  // The mount rewrites Host and X-Forwarded-Proto from PUBLIC_URL, so every URL the library builds is public.
  provider.proxy = true;
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!refusalAlreadyRendered(error, ctx.status)) throw error;
    }
    await amendResponse(ctx as KoaContextWithOIDC, deps);
  });
  return provider;
}

/**
 * oidc-provider 9 saves the session a route touched after the route's error handler has rendered its
 * refusal; a session that was never stored (a visitor without one, refused on the device verification
 * page for an unknown or malformed code) cannot be, and the library throws a TypeError over the 4xx it
 * already set, which Koa turned into a 500 (issue #31 fuzz). That refusal stands; nothing was stored.
 */
function refusalAlreadyRendered(error: unknown, status: number): boolean {
  return error instanceof TypeError && error.message.includes('previously persisted Sessions') && status >= 400 && status < 500;
}

async function amendResponse(ctx: KoaContextWithOIDC, deps: ProviderDeps): Promise<void> {
  const oidc = (ctx as { oidc?: KoaContextWithOIDC['oidc'] }).oidc;
  const body = ctx.body as Record<string, unknown> | undefined;
  if (!oidc || !body || typeof body !== 'object') return;
  switch (oidc.route) {
    case 'discovery':
      body.scopes_supported = [...ADVERTISED_SCOPES];
      body.userinfo_endpoint = `${deps.settings.issuer}${OAUTH_ROUTES.userinfo}`;
      break;
    case 'device_authorization':
      if (ctx.status === 200) body.interval = DEVICE_POLL_INTERVAL;
      break;
    case 'token': {
      const deviceCode = oidc.params?.device_code;
      if (oidc.params?.grant_type !== DEVICE_CODE_GRANT || body.error !== 'authorization_pending' || typeof deviceCode !== 'string') break;
      const poll = await deps.store.devicePoll(deviceCode, deps.clock.now(), DEVICE_POLL_INTERVAL);
      if (poll?.tooFast) {
        ctx.body = { error: 'slow_down', error_description: `polling too fast: wait at least ${poll.interval} seconds between requests` };
      }
      break;
    }
    default:
  }
}
