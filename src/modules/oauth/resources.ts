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
  return kind === 'mcp' ? [...PRODUCT_SCOPES, ...IDENTITY_SCOPES] : PRODUCT_SCOPES;
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
