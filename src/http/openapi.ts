import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelopeSchema, errorResponses } from './schemas.ts';
import { webhookDocs } from '../modules/webhooks/event-schemas.ts';

const DESCRIPTION = `Discover and build audiences from an identity graph, resolve customer lists against it, and deliver
the results. Authenticate by exchanging an API key at \`POST /v1/auth/token\` and sending
\`Authorization: Bearer <access_token>\`. Every error uses one envelope: \`{error, message, code, request_id,
next_step?, issues?}\`; the request id is also in the \`X-Request-Id\` response header.`;

/** OpenAPI 3.1 generated from the route schemas, served at /v1/openapi.json, with human docs at /docs. */
export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  app.addSchema(ErrorEnvelopeSchema);
  // Every operation documents the envelope for the errors any route can give: 500 always; 400 when it
  // takes input; 401/403/429 when it needs a bearer. Routes add their own (404, 409, ...) explicitly.
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const config = (route.config ?? {}) as { scope?: string };
    const takesInput = !!(route.schema.body || route.schema.querystring || route.schema.params);
    const defaults = errorResponses(takesInput ? [400] : [], !!config.scope);
    route.schema.response = { ...defaults, ...(route.schema.response as object | undefined) };
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Audience Data Service API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as never,
      },
      servers: [{ url: options.publicUrl, description: 'This service' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Access token from POST /v1/auth/token or OAuth' },
        },
      },
      security: [{ bearerAuth: [] }],
      // OpenAPI 3.1 `webhooks`: the events the service POSTs to customers' endpoints.
      webhooks: webhookDocs as never,
      tags: [
        { name: 'Authentication', description: 'API-key exchange and OAuth' },
        { name: 'Discovery', description: 'Field catalog, counts, masked samples and the current data release' },
        { name: 'Account', description: 'API keys, settings, billing' },
        { name: 'Webhooks', description: 'Organization webhook URL, subscriptions, events and their delivery log' },
        { name: 'Operations', description: 'Health, readiness and metrics' },
        { name: 'Segments', description: 'Filter segments (and later matched, similarity, propensity): create, refresh, duplicate, archive, delete' },
        { name: 'Audiences', description: 'Compositions of segments with a 90-day expiry: create, count, refresh, fork' },
        { name: 'Campaigns', description: 'Named workspaces grouping audiences (an audience belongs to at most one)' },
        { name: 'Matching', description: 'Micro-batch matching of customer records against the identity graph (POST /v1/match)' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  const { default: scalar } = await import('@scalar/fastify-api-reference');
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/v1/openapi.json', title: 'Audience Data Service API' } });
}
