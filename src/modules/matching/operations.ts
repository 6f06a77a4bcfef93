/** The micro-batch match operation (spec 4.5 POST /v1/match). */
import { callerOf, defineOperation, type Operation } from '../../core/operation.ts';
import { MAX_RECORDS, MatchBody, MatchResponseSchema } from './schemas.ts';
import type { MatchingService, MatchRequest } from './service.ts';

export function matchingOperations(deps: { matching: MatchingService }): Operation[] {
  return [
    defineOperation({
      id: 'matchRecords',
      method: 'POST',
      path: '/v1/match',
      tags: ['Matching'],
      access: 'creator',
      effect: 'spend',
      summary: 'Match up to 100 records against the identity graph (micro-batch)',
      description:
        'One output record per input, in order. Matched rows carry a tier-01 iag_person_id (stable within the organization) and the ' +
        "attributes of field_list or template_id (default: every field tagged audience or feature_store) beside the echoed inputs; identity fields only for an I match of the record's own identifying fields (never for a refresh by iag_person_id), " +
        'and levels below I carry fewer fields (no exact age or household income; docs/decisions/051); only ids issued by I matches refresh. ' +
        'Unmatched rows are free and carry a tier 02-05 continuity label or null. A bad value is a row warning, never a failed batch; ' +
        `row_id problems (400 INVALID_ROW_ID, DUPLICATE_ROW_ID) and more than ${MAX_RECORDS} records (400 TOO_MANY_RECORDS) reject the request ` +
        "and charge nothing. Cost: amount_charged = matched records x the contract's per-record microbatch rate (a ceiling of all records is reserved first). " +
        'Idempotency-Key: the same key and body from the same caller within 24 hours replays the original response without a second charge; another body is 409 IDEMPOTENCY_KEY_CONFLICT.',
      input: { body: MatchBody },
      status: 200,
      responses: { 200: MatchResponseSchema },
      errors: [
        'TOO_MANY_RECORDS',
        'DUPLICATE_ROW_ID',
        'INVALID_ROW_ID',
        'UNKNOWN_FIELD',
        'AMBIGUOUS_FIELD_SELECTION',
        'IDEMPOTENCY_KEY_CONFLICT',
        'INVALID_IDEMPOTENCY_KEY',
        'DATA_RELEASE_UNAVAILABLE',
        'BQ_TABLE_MISSING',
      ],
      idempotency: {},
      agent: { tool: 'match_records', estimate: async (ctx, { body }) => deps.matching.quote(callerOf(ctx), body as MatchRequest) },
      examples: [
        {
          name: 'two-rows',
          summary: 'An email row and a name-and-address row',
          request: {
            body: {
              records: [
                { row_id: 'crm-1', email: 'ann.lee@example.com' },
                {
                  row_id: 'crm-2',
                  first_name: 'Ann',
                  last_name: 'Lee',
                  address_1: '12 Main St',
                  city: 'Springfield',
                  state: 'IL',
                  zip: '62701',
                },
              ],
            },
          },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => deps.matching.match(callerOf(ctx), body as MatchRequest),
    }),
  ];
}
