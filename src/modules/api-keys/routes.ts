import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ApiKeyIdParams, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from './schemas.ts';
import type { ApiKeyService } from './service.ts';

export function apiKeyRoutes(deps: { apiKeys: ApiKeyService }): FastifyPluginAsyncTypebox {
  const { apiKeys } = deps;
  return async (app) => {
    app.post(
      '/v1/settings/api-keys',
      {
        config: { scope: 'account' },
        schema: {
          tags: ['Account'],
          summary: 'Create an API key (owners and admins)',
          body: CreateApiKeyBody,
          response: { 201: CreatedApiKeySchema, ...errorResponses([400]) },
        },
      },
      async (request, reply) => {
        const { orgId, userId } = principalOf(request);
        reply.status(201);
        return apiKeys.createKey({ orgId, userId }, request.body);
      },
    );

    app.get(
      '/v1/settings/api-keys',
      {
        config: { scope: 'account' },
        schema: {
          tags: ['Account'],
          summary: 'List API keys (never their secret)',
          response: { 200: Type.Object({ api_keys: Type.Array(ApiKeySchema) }), ...errorResponses([]) },
        },
      },
      async (request) => ({ api_keys: await apiKeys.listKeys(principalOf(request).orgId) }),
    );

    app.delete(
      '/v1/settings/api-keys/:id',
      {
        config: { scope: 'account' },
        schema: {
          tags: ['Account'],
          summary: 'Deactivate an API key (owners and admins)',
          description: 'New exchanges with the key fail at once; bearer tokens already issued stay valid until they expire (at most one hour).',
          params: ApiKeyIdParams,
          response: { 200: ApiKeySchema, ...errorResponses([404]) },
        },
      },
      async (request) => {
        const { orgId, userId } = principalOf(request);
        return apiKeys.deactivateKey({ orgId, userId }, request.params.id);
      },
    );
  };
}
