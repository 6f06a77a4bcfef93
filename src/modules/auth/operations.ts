/** Operations of the auth area: API-key exchange, the calling token, and API keys (spec 4.1, 4.8, 5). */
import { callerOf, defineOperation, reply, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams } from '../../core/schema.ts';
import type { ApiKeyService } from './api-keys.ts';
import {
  ApiKeyListSchema,
  ApiKeySchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  SessionResponse,
  TokenRequest,
  TokenResponse,
} from './schemas.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type AuthService } from './service.ts';

const tags = ['Authentication'];
const accountTags = ['Account'];

export function authOperations(deps: { auth: AuthService; apiKeys: ApiKeyService }): Operation[] {
  const { auth, apiKeys } = deps;
  return [
    defineOperation({
      id: 'exchangeApiKey',
      method: 'POST',
      path: '/v1/auth/token',
      tags,
      access: 'public',
      effect: 'read',
      summary: 'Exchange an API key for a bearer token',
      description:
        `Returns a bearer valid for ${ACCESS_TOKEN_TTL_SECONDS} seconds. No refresh token is issued; re-exchange shortly before expiry. ` +
        "Send the bearer (never the raw key) as `Authorization: Bearer <access_token>`; the same bearer works on the tool and agent endpoints within the key's scopes.",
      input: { body: TokenRequest },
      status: 200,
      responses: { 200: TokenResponse },
      errors: ['TOKEN_INVALID', 'rate_limit_exceeded'],
      agent: false,
      examples: [
        {
          name: 'exchange',
          summary: 'Exchange a live API key',
          request: { body: { api_key: EXAMPLE.apiKey } },
          response: {
            status: 200,
            body: { access_token: 'ads_at.eyJvcmciOiJvcmdfLi4uIn0.c2lnbmF0dXJl', token_type: 'Bearer', expires_in: 3600 },
          },
        },
      ],
      handler: async (_ctx, { body }) => auth.exchangeApiKey(body.api_key),
    }),

    defineOperation({
      id: 'getSession',
      method: 'GET',
      path: '/v1/auth/session',
      tags,
      access: 'authenticated',
      effect: 'read',
      summary: 'Describe the calling token',
      description: 'Organization, user, scopes and expiry of the bearer sent. Any valid bearer may call it. Free.',
      input: {},
      status: 200,
      responses: { 200: SessionResponse },
      errors: [],
      agent: { tool: 'whoami' },
      examples: [
        {
          name: 'session',
          summary: 'The token of an API key with all three scopes',
          request: {},
          response: {
            status: 200,
            body: {
              org_id: 'org_...',
              user_id: 'usr_...',
              key_id: EXAMPLE.keyId,
              scopes: ['discovery', 'creator', 'account'],
              via: 'api_key',
              expires_at: '2026-11-23T13:00:00.000Z',
            },
          },
        },
      ],
      handler: async (ctx) => {
        const c = callerOf(ctx);
        return { org_id: c.orgId, user_id: c.userId, key_id: c.keyId, scopes: c.scopes, via: c.via, expires_at: c.expiresAt.toISOString() };
      },
    }),

    defineOperation({
      id: 'createApiKey',
      method: 'POST',
      path: '/v1/settings/api-keys',
      tags: accountTags,
      access: 'account',
      effect: 'write',
      summary: 'Create an API key (owners and admins)',
      description:
        'The full key is in `raw_key` of this response only; the service keeps a hash. A key may grant only scopes the calling credential holds.',
      input: { body: CreateApiKeyBody },
      status: 201,
      responses: { 201: CreatedApiKeySchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'SCOPE_NOT_HELD'],
      agent: false,
      examples: [
        {
          name: 'partner-key',
          summary: 'A discovery-only key for a partner',
          request: { body: { name: 'partner', scopes: ['discovery'] } },
          response: {
            status: 201,
            body: {
              id: 'key_...',
              raw_key: 'ads_live_...',
              name: 'partner',
              scopes: ['discovery'],
              created_at: '2026-11-23T12:00:00.000Z',
            },
          },
        },
      ],
      handler: async (ctx, { body }) => {
        const c = callerOf(ctx);
        return apiKeys.createKey({ orgId: c.orgId, userId: c.userId, scopes: c.scopes }, body);
      },
    }),

    defineOperation({
      id: 'listApiKeys',
      method: 'GET',
      path: '/v1/settings/api-keys',
      tags: accountTags,
      access: 'account',
      effect: 'read',
      summary: 'List API keys (never their secret)',
      description: 'Every key of the organization, active and deactivated, newest first, with a hint to recognise each.',
      input: {},
      status: 200,
      responses: { 200: ApiKeyListSchema },
      errors: [],
      agent: false,
      examples: [{ name: 'list', summary: "The organization's keys", request: {}, response: { status: 200 } }],
      handler: async (ctx) => ({ api_keys: await apiKeys.listKeys(callerOf(ctx).orgId) }),
    }),

    defineOperation({
      id: 'deactivateApiKey',
      method: 'DELETE',
      path: '/v1/settings/api-keys/{id}',
      tags: accountTags,
      access: 'account',
      effect: 'write',
      summary: 'Deactivate an API key (owners and admins)',
      description: 'New exchanges with the key fail at once; bearer tokens already issued stay valid until they expire (at most one hour).',
      input: { params: IdParams },
      status: 200,
      responses: { 200: ApiKeySchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'API_KEY_NOT_FOUND'],
      agent: false,
      examples: [
        { name: 'deactivate', summary: 'Deactivate a key', request: { params: { id: EXAMPLE.revocableKeyId } }, response: { status: 200 } },
      ],
      handler: async (ctx, { params }) => {
        const c = callerOf(ctx);
        return reply(200, await apiKeys.deactivateKey({ orgId: c.orgId, userId: c.userId }, params.id));
      },
    }),
  ];
}
