import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { MatchBody, MatchResponseSchema, MAX_RECORDS } from './schemas.ts';
import type { MatchingService, MatchRequest } from './service.ts';

const tags = ['Matching'];

export function matchingRoutes(deps: { matching: MatchingService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/v1/match', {
      config: { scope: 'creator' },
      schema: {
        tags,
        summary: 'Match up to 100 records against the identity graph (micro-batch)',
        description:
          `One output record per input, in order. Matched rows carry a tier-01 iag_person_id (stable within the organization) and the ` +
          `attributes of field_list or template_id (default: the standard enrichment set); identity fields are returned for level I only. ` +
          `Unmatched rows are free and carry a tier 02-05 continuity label or null. A bad value is a row warning, never a failed batch; ` +
          `row_id problems (400 INVALID_ROW_ID, DUPLICATE_ROW_ID) and more than ${MAX_RECORDS} records (400 TOO_MANY_RECORDS) reject the request ` +
          `and charge nothing. amount_charged = matched records x the tier's per-record rate. Idempotency-Key: the same key and body within ` +
          `24 hours replays the original response without a second charge; another body is 409 IDEMPOTENCY_KEY_CONFLICT.`,
        body: MatchBody,
        response: { 200: MatchResponseSchema, ...errorResponses([400, 409, 502, 503]) },
      },
    }, async (request, reply) => {
      const header = request.headers['idempotency-key'];
      const key = Array.isArray(header) ? header[0] : header;
      const result = await deps.matching.match(principalOf(request), request.body as MatchRequest, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      reply.status(result.statusCode as 200);
      return result.body as never;
    });
  };
}
