/**
 * RFC 9728 protected resource metadata for the three resources, and the `WWW-Authenticate` challenge a
 * 401 or 403 of each resource carries (the MCP authorization rules' discovery path).
 */
import type { OAuthSettings } from '../../config/index.ts';
import { RESOURCE_TITLES, resourceScopes, type ResourceKind } from './resources.ts';

/** The path-inserted well-known URL of a resource's metadata (RFC 9728 section 3.1). */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

export function protectedResourceMetadata(settings: OAuthSettings, kind: ResourceKind): Record<string, unknown> {
  return {
    resource: settings.resources[kind],
    authorization_servers: [settings.issuer],
    scopes_supported: [...resourceScopes(kind)],
    bearer_methods_supported: ['header'],
    resource_name: `Audience Data Service ${RESOURCE_TITLES[kind]}`,
    resource_documentation: `${settings.issuer}/docs`,
  };
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

/**
 * The challenge of a refused request: `invalid_token` when a token was sent and refused (401),
 * `insufficient_scope` with the scope needed (403), and always where the resource's metadata lives.
 */
export function bearerChallenge(
  resource: string,
  refusal?: { error: 'invalid_token' | 'insufficient_scope'; description?: string; scope?: string },
): string {
  const params = [`resource_metadata=${quoted(resourceMetadataUrl(resource))}`];
  if (refusal) {
    params.unshift(`error=${quoted(refusal.error)}`);
    if (refusal.description) params.push(`error_description=${quoted(refusal.description)}`);
    if (refusal.scope) params.push(`scope=${quoted(refusal.scope)}`);
  }
  return `Bearer ${params.join(', ')}`;
}
