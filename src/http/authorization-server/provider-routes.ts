/**
 * The authorization server's protocol endpoints (spec 4.1) are oidc-provider's, a Koa app: each route
 * here hands the raw request to it untouched (the body unread), after pinning Host and the scheme to
 * PUBLIC_URL so every URL it builds is the public one, whatever the request came in as.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { OAuthModule } from '../../modules/oauth/index.ts';
import { OAUTH_ROUTES } from '../../modules/oauth/index.ts';

const PROVIDER_ROUTES: { url: string; methods: HTTPMethods[] }[] = [
  { url: OAUTH_ROUTES.authorization, methods: ['GET', 'POST'] },
  { url: `${OAUTH_ROUTES.authorization}/:uid`, methods: ['GET'] },
  { url: OAUTH_ROUTES.token, methods: ['POST', 'OPTIONS'] },
  { url: OAUTH_ROUTES.revocation, methods: ['POST', 'OPTIONS'] },
  { url: OAUTH_ROUTES.device_authorization, methods: ['POST', 'OPTIONS'] },
  { url: OAUTH_ROUTES.code_verification, methods: ['GET', 'POST'] },
  { url: `${OAUTH_ROUTES.code_verification}/:uid`, methods: ['GET'] },
  { url: OAUTH_ROUTES.registration, methods: ['POST', 'OPTIONS'] },
  { url: `${OAUTH_ROUTES.registration}/:clientId`, methods: ['GET'] },
  { url: OAUTH_ROUTES.jwks, methods: ['GET', 'OPTIONS'] },
  { url: '/.well-known/openid-configuration', methods: ['GET', 'OPTIONS'] },
  { url: '/.well-known/oauth-authorization-server', methods: ['GET', 'OPTIONS'] },
];

export async function registerProviderRoutes(app: FastifyInstance, oauth: OAuthModule): Promise<void> {
  const callback = oauth.provider.callback();
  const issuer = new URL(oauth.settings.issuer);

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const req = request.raw;
    req.headers.host = issuer.host;
    req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    delete req.headers['x-forwarded-host'];
    reply.raw.setHeader('x-request-id', request.id);
    await callback(req, reply.raw);
  };

  // Its own context: the library reads the bodies (form-encoded or JSON) itself, from the raw request, and
  // decodes no Content-Encoding (src/http/body.ts refuses one). Refusals before it are RFC 6749 errors.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const { url, methods } of PROVIDER_ROUTES) {
      scope.route({
        method: methods,
        url,
        config: { access: 'public', protocol: 'oauth', rawRequest: true },
        schema: { hide: true },
        handler: forward,
      });
    }
  });
}
