/**
 * RFC 9728 metadata of the three protected resources, and userinfo (spec 4.1: an access token for the
 * tool resource with `openid`; `email` and `email_verified: true` when email was granted).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError } from '../../core/errors.ts';
import type { OAuthModule, ResourceKind } from '../../modules/oauth/index.ts';
import { bearerChallenge, OAUTH_ROUTES, protectedResourceMetadata, resourceMetadataUrl } from '../../modules/oauth/index.ts';

export function registerResourceRoutes(app: FastifyInstance, oauth: OAuthModule): void {
  const { settings } = oauth;
  const issuerOrigin = new URL(settings.issuer).origin;
  for (const kind of Object.keys(settings.resources) as ResourceKind[]) {
    const url = new URL(resourceMetadataUrl(settings.resources[kind]));
    if (url.origin !== issuerOrigin) continue; // a resource on another host serves its own metadata
    app.get(url.pathname, { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
      reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600');
      return protectedResourceMetadata(settings, kind);
    });
  }

  const mcp = settings.resources.mcp;
  const userinfo = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store').header('access-control-allow-origin', '*');
    const match = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i);
    const refuse = (status: number, error: string, description: string) =>
      reply
        .status(status)
        .header('www-authenticate', bearerChallenge(mcp, { error: error as never, description }))
        .send({ error, error_description: description });
    if (!match) return refuse(401, 'invalid_token', 'send the access token as Authorization: Bearer');
    try {
      const caller = await oauth.verifyAccessToken(match[1]!, mcp);
      if (!caller.scopes.includes('openid')) return refuse(403, 'insufficient_scope', 'the token was not granted openid');
      return { sub: caller.userId, ...(caller.scopes.includes('email') ? { email: caller.email, email_verified: true } : {}) };
    } catch (error) {
      if (isDomainError(error)) return refuse(401, 'invalid_token', error.message);
      throw error;
    }
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: OAUTH_ROUTES.userinfo,
      config: { access: 'public', protocol: 'oauth' },
      schema: { hide: true },
      handler: userinfo,
    });
  }
}
