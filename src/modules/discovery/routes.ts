import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { CatalogField } from '../catalog/types.ts';
import { CountBody, CountResponse, LookupBody, lookupResponse } from './schemas.ts';
import type { DiscoveryService } from './service.ts';

const COMMON = 'Exactly one input: `filters`, `filter_groups`, `segment_id`, `audience_id` or `segment_ids` (+ `set_logic`, `excluded_segment_ids`); '
  + 'more is 400 AMBIGUOUS_INPUT, none 400 NO_INPUT_SPECIFIED. Results below 50 persons: 422 AGGREGATION_FLOOR_NOT_MET. '
  + 'Each call is charged its estimated scan to the hourly compute budget (429 compute_limit_exceeded).';

export function discoveryRoutes(deps: { discovery: DiscoveryService; fields: readonly CatalogField[] }): FastifyPluginAsyncTypebox {
  const { discovery } = deps;
  return async (app) => {
    app.post(
      '/v1/discovery/count',
      {
        config: { scope: 'discovery' },
        schema: {
          tags: ['Discovery'],
          summary: 'Count persons matching filters or saved segments',
          description: `${COMMON} Buckets of groups and breakdowns below 50 are suppressed and counted in \`suppressed_groups\`.`,
          body: CountBody,
          response: { 200: CountResponse, ...errorResponses([400, 404, 422, 502, 503]) },
        },
      },
      async (request) => discovery.count(principalOf(request).orgId, request.body),
    );

    app.post(
      '/v1/discovery/lookup',
      {
        config: { scope: 'discovery' },
        schema: {
          tags: ['Discovery'],
          summary: 'Sample masked rows of matching persons',
          description: `${COMMON} Only non-PII fields can be requested; never names, emails, phones, street addresses or exact dates of birth.`,
          body: LookupBody,
          response: { 200: lookupResponse(deps.fields), ...errorResponses([400, 404, 422, 502, 503]) },
        },
      },
      async (request) => discovery.lookup(principalOf(request).orgId, request.body),
    );
  };
}
