import type { DomainError } from '../../core/errors.ts';
import { bearerChallenge } from '../../modules/oauth/index.ts';

/**
 * `WWW-Authenticate` of the REST API's refusals: where its RFC 9728 metadata lives, plus `invalid_token`
 * when a token was sent and refused, or `insufficient_scope` with the scope an operation needs.
 */
export function oauthChallenge(resource: string) {
  return (error: DomainError, authorization: string | undefined): string | null => {
    if (error.code === 'SCOPE_REQUIRED') {
      return bearerChallenge(resource, { error: 'insufficient_scope', scope: String(error.details?.required_scope ?? '') });
    }
    if (error.code !== 'TOKEN_INVALID' && error.code !== 'TOKEN_EXPIRED') return null;
    return bearerChallenge(resource, authorization ? { error: 'invalid_token', description: error.message } : undefined);
  };
}
