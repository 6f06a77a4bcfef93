/** Discovery operations (spec 4.2): count and masked sample lookup. */
import { callerOf, defineOperation, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import type { CatalogField } from '../../graph/index.ts';
import { CountBody, CountResponse, LookupBody, lookupResponse } from './schemas.ts';
import type { DiscoveryService } from './service.ts';

const COMMON =
  'Exactly one input: `filters`, `filter_groups`, `segment_id`, `audience_id` or `segment_ids` (+ `set_logic`, `excluded_segment_ids`); ' +
  'more is 400 AMBIGUOUS_INPUT, none 400 NO_INPUT_SPECIFIED. Results below the privacy floor (50 persons): 422 AGGREGATION_FLOOR_NOT_MET. ' +
  'Every number shown carries small sticky noise (the same question always gets the same answer; no question at or above the floor is refused). ' +
  'Free of charge in money; each call is charged its estimated scan to the hourly compute budget (429 compute_limit_exceeded).';
const ERRORS = [
  'INVALID_FILTER',
  'AMBIGUOUS_INPUT',
  'NO_INPUT_SPECIFIED',
  'SEGMENT_NOT_FOUND',
  'AUDIENCE_NOT_FOUND',
  'AUDIENCE_EXPIRED',
  'SEGMENT_ARCHIVED',
  'AGGREGATION_FLOOR_NOT_MET',
  'compute_limit_exceeded',
  'FILTER_CATALOG_UNAVAILABLE',
  'DATA_RELEASE_UNAVAILABLE',
  'BQ_TABLE_MISSING',
  'LIMIT_EXCEEDED',
  'QUERY_TIMEOUT',
] as const;

export function discoveryOperations(deps: { discovery: DiscoveryService; fields: readonly CatalogField[] }): Operation[] {
  const { discovery } = deps;
  return [
    defineOperation({
      id: 'countPersons',
      method: 'POST',
      path: '/v1/discovery/count',
      tags: ['Discovery'],
      access: 'discovery',
      effect: 'read',
      summary: 'Count persons matching filters or saved segments',
      description:
        `${COMMON} With \`group_by\`, one bucket per value; without it, default breakdowns for raw filters, one filter segment or an audience. ` +
        'Buckets below the floor are suppressed and counted in `suppressed_groups`.',
      input: { body: CountBody },
      status: 200,
      responses: { 200: CountResponse },
      errors: [...ERRORS, 'INVALID_GROUP_BY'],
      agent: { tool: 'count_persons' },
      examples: [
        {
          name: 'filters',
          summary: 'Persons aged 30-45 in California',
          request: {
            body: {
              filters: [
                { field: 'state', op: '=', value: 'CA' },
                { field: 'age', op: 'BETWEEN', value: [30, 45] },
              ],
            },
          },
          response: { status: 200 },
        },
        {
          name: 'segment-by-gender',
          summary: 'A saved segment, grouped by gender',
          request: { body: { segment_id: EXAMPLE.filterSegmentId, group_by: 'gender' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => discovery.count(callerOf(ctx), body),
    }),
    defineOperation({
      id: 'lookupPersons',
      method: 'POST',
      path: '/v1/discovery/lookup',
      tags: ['Discovery'],
      access: 'discovery',
      effect: 'read',
      summary: 'Sample masked rows of matching persons',
      description: `${COMMON} Only non-PII fields can be requested (1-30, unique); never names, emails, phones, street addresses or exact dates of birth.`,
      input: { body: LookupBody },
      status: 200,
      responses: { 200: lookupResponse(deps.fields) },
      errors: [...ERRORS, 'INVALID_LOOKUP_FIELDS'],
      agent: { tool: 'sample_persons' },
      examples: [
        {
          name: 'sample',
          summary: 'Five masked rows of Texans',
          request: { body: { filters: [{ field: 'state', op: '=', value: 'TX' }], fields: ['age', 'gender', 'income_band'], limit: 5 } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => discovery.lookup(callerOf(ctx), body),
    }),
  ];
}
