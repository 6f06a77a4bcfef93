/**
 * The three protected resources and the scopes each accepts (spec 5.5-5.9; ADR 028). Pure rules: the
 * provider configuration, the consent page and the token verifier all read them from here.
 */
import type { OAuthResources } from '../../config/index.ts';

export type ResourceKind = keyof OAuthResources;

/** Product scopes an OAuth grant can carry. `account` (administration) stays with API keys. */
export const PRODUCT_SCOPES = ['discovery', 'creator', 'account-read'] as const;
/** Identity scopes: only with the tool resource, and `email` only with `openid` (spec 5.9). */
export const IDENTITY_SCOPES = ['openid', 'email'] as const;

/** Every scope the authorization server and protected resource metadata advertise: each one registers (spec 5.11). */
export const ADVERTISED_SCOPES: readonly string[] = [...PRODUCT_SCOPES, ...IDENTITY_SCOPES];

/**
 * The `scope` a dynamically registered client is recorded with, or why it cannot register. Any advertised
 * scope registers (MCP clients send the resource's `scopes_supported`). The provider records only the
 * identity scopes, its own (it keeps a client's openid/email requests within them); product scopes are
 * scopes of the resources, chosen per authorization by the person on the consent page.
 */
export function registeredScope(scope: unknown): { scope: string | undefined } | { problem: string } {
  if (scope === undefined || scope === null) return { scope: undefined };
  if (typeof scope !== 'string') return { problem: 'scope must be a string of space-separated scope values' };
  const values = [...new Set(scope.split(' ').filter(Boolean))];
  const unknown = values.filter((s) => !ADVERTISED_SCOPES.includes(s));
  if (unknown.length) return { problem: `scope ${unknown.join(' ')} is not offered here; the scopes are ${ADVERTISED_SCOPES.join(' ')}` };
  const identity = values.filter((s) => (IDENTITY_SCOPES as readonly string[]).includes(s));
  return { scope: identity.length ? identity.join(' ') : undefined };
}

/** Preselected on the consent page; the others need an explicit opt-in (spec 5.5). */
export const PRESELECTED_SCOPES = new Set(['discovery', 'openid', 'email']);

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  discovery: 'Read-only: counts, masked samples, segments, audiences, catalog and status.',
  creator: 'Read-write: create and change segments and audiences, match records, run deliveries (these can cost money).',
  'account-read': 'Read account status: usage, credit balance and auto-recharge status. No changes, no keys, no purchases.',
  openid: 'Know who you are (your user id in this service).',
  email: 'See your email address.',
};

/** Resources the device authorization grant serves: agents and tools (ADR 029). */
export const DEVICE_FLOW_RESOURCES: readonly ResourceKind[] = ['a2a', 'mcp'];

export function resourceKindOf(resources: OAuthResources, indicator: string): ResourceKind | null {
  for (const kind of Object.keys(resources) as ResourceKind[]) if (resources[kind] === indicator) return kind;
  return null;
}

/** The scopes a token for this resource may carry: the product scopes, and the identity scopes on the tool resource. */
export function resourceScopes(kind: ResourceKind): readonly string[] {
  return kind === 'mcp' ? ADVERTISED_SCOPES : PRODUCT_SCOPES;
}

export const RESOURCE_TITLES: Record<ResourceKind, string> = {
  api: 'REST API',
  mcp: 'Tool connection (MCP)',
  a2a: 'Agent endpoint (A2A)',
};

/**
 * Why a request for `scopes` on a resource is refused, or null when it is acceptable. `openid`/`email`
 * belong to the tool resource only; `email` needs `openid`.
 */
export function identityScopeProblem(kind: ResourceKind, scopes: ReadonlySet<string>): string | null {
  const identity = IDENTITY_SCOPES.filter((s) => scopes.has(s));
  if (identity.length && kind !== 'mcp') return `${identity.join(' and ')} can only be requested with the tool resource`;
  if (scopes.has('email') && !scopes.has('openid')) return 'email requires openid';
  return null;
}
