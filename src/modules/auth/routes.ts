import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { DateTime, errorResponses, Nullable } from '../../http/schemas.ts';
import type { AuthService } from './service.ts';

const TokenRequest = Type.Object({ api_key: Type.String({ minLength: 1, description: 'An API key (prefix ads_live_)' }) }, { additionalProperties: false });
const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires (3600)' }),
});

const SessionResponse = Type.Object({
  org_id: Type.String(),
  user_id: Type.String(),
  key_id: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  via: Type.Union([Type.Literal('api_key'), Type.Literal('oauth')]),
  expires_at: DateTime(),
});

export function authRoutes(deps: { auth: AuthService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/v1/auth/token',
      {
        config: { public: true },
        schema: {
          tags: ['Authentication'],
          summary: 'Exchange an API key for a bearer token',
          description: 'Returns a bearer valid for 3600 seconds. No refresh token is issued; re-exchange shortly before expiry.',
          security: [],
          body: TokenRequest,
          response: { 200: TokenResponse, ...errorResponses([400], false), 401: errorResponses([401])[401]! },
        },
      },
      async (request) => deps.auth.exchangeApiKey(request.body.api_key),
    );

    app.get(
      '/v1/auth/session',
      {
        config: { scope: 'authenticated' },
        schema: {
          tags: ['Authentication'],
          summary: 'Describe the calling token',
          description: 'Organization, user, scopes and expiry of the bearer sent. Any valid bearer may call it.',
          response: { 200: SessionResponse },
        },
      },
      async (request) => {
        const p = principalOf(request);
        return { org_id: p.orgId, user_id: p.userId, key_id: p.keyId, scopes: p.scopes, via: p.via, expires_at: p.expiresAt.toISOString() };
      },
    );
  };
}
