import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Operation } from '../core/operation.ts';
import { webhookDocs } from '../modules/webhooks/index.ts';
import { ErrorEnvelopeSchema } from './schemas.ts';

const DESCRIPTION = `Discover and build audiences from an identity graph, resolve customer lists against it, and deliver
the results. Authenticate by exchanging an API key at \`POST /v1/auth/token\` and sending
\`Authorization: Bearer <access_token>\`, or with an OAuth access token for the REST API resource (partner apps
and agents: see the OAuth tag and docs/oauth.md). Every error uses one envelope: \`{error, message, code, request_id,
next_step?, issues?}\`; the request id is also in the \`X-Request-Id\` response header.`;

const TAGS = [
  { name: 'Authentication', description: 'API-key exchange and OAuth' },
  { name: 'Discovery', description: 'Field catalog, counts, masked samples and the current data release' },
  { name: 'Segments', description: 'Filter, matched, similarity and propensity segments: create, refresh, duplicate, archive, delete' },
  { name: 'Audiences', description: 'Compositions of segments with a 90-day expiry: create, count, refresh, fork' },
  { name: 'Campaigns', description: 'Named workspaces grouping audiences (an audience belongs to at most one)' },
  { name: 'Matching', description: 'Micro-batch and file matching of customer records against the identity graph' },
  { name: 'Account', description: 'API keys, settings, billing' },
  { name: 'Webhooks', description: 'Organization webhook URL, subscriptions, events and their delivery log' },
  {
    name: 'OAuth',
    description: 'OAuth 2.1 and OpenID Connect for partner apps and agents (authorization code with PKCE, device flow, registration)',
  },
];

type Doc = { paths: Record<string, Record<string, Record<string, any>>> };

/** Adds each declaration's worked examples to its operation (request body and responses by status). */
function withExamples(doc: Doc, operations: readonly Operation[]): Doc {
  const byId = new Map(operations.map((op) => [op.id, op]));
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const decl = byId.get(op.operationId);
      if (!decl) continue;
      const body = decl.examples.filter((e) => e.request.body !== undefined);
      const media = op.requestBody?.content?.['application/json'];
      if (media && body.length)
        media.examples = Object.fromEntries(body.map((e) => [e.name, { summary: e.summary, value: e.request.body }]));
      if (decl.rawBody && !op.requestBody) {
        op.requestBody = {
          required: true,
          description: decl.rawBody.description,
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        };
      }
      op['x-examples'] = decl.examples.map((e) => ({ name: e.name, summary: e.summary, request: e.request, response: e.response }));
      for (const e of decl.examples) {
        const target = op.responses?.[String(e.response.status)]?.content?.['application/json'];
        if (target && e.response.body !== undefined)
          target.examples = { ...(target.examples ?? {}), [e.name]: { summary: e.summary, value: e.response.body } };
      }
      op['x-effect'] = decl.effect;
      if (decl.access !== 'public' && decl.access !== 'authenticated') op['x-required-scope'] = decl.access;
    }
  }
  return doc;
}

/** OpenAPI 3.1 generated from the operation declarations, served at /v1/openapi.json, with human docs at /docs. */
export async function registerOpenApi(
  app: FastifyInstance,
  options: { publicUrl: string; operations: readonly Operation[]; extraPaths?: Doc['paths'] },
): Promise<void> {
  app.addSchema(ErrorEnvelopeSchema);
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
      tags: TAGS,
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  let cached: Doc | null = null;
  app.get('/v1/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => {
    cached ??= withExamples(structuredClone(app.swagger() as unknown as Doc), options.operations);
    Object.assign(cached.paths, options.extraPaths);
    return cached;
  });

  const { default: scalar } = await import('@scalar/fastify-api-reference');
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/v1/openapi.json', title: 'Audience Data Service API' } });
}
