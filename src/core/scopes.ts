/**
 * Scopes of spec section 5. API keys hold `discovery`, `creator`, `account`; OAuth grants may also hold
 * `account-read` (read-only account operations) and the identity scopes `openid` and `email`.
 * `purchase` is the overview's older name for `creator`.
 */
export const API_KEY_SCOPES = ['discovery', 'creator', 'account'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Every scope an operation may require. */
export type Scope = ApiKeyScope | 'account-read';

/** Normalizes requested key scopes: `purchase` means `creator`; duplicates are dropped. */
export function normalizeKeyScopes(scopes: readonly string[]): ApiKeyScope[] {
  const out = new Set<ApiKeyScope>();
  for (const scope of scopes) out.add((scope === 'purchase' ? 'creator' : scope) as ApiKeyScope);
  return API_KEY_SCOPES.filter((s) => out.has(s));
}

/**
 * Whether granted scopes satisfy a required one. Read-write implies read: `creator` may do what
 * `discovery` may (reading what it creates), `account` may do what `account-read` may.
 */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  if (required === 'discovery') return granted.includes('creator');
  if (required === 'account-read') return granted.includes('account');
  return false;
}
