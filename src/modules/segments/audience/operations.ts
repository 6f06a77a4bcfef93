/** Operations on audiences (spec 4.4, 4.11). */
import { Type } from 'typebox';
import { callerOf, defineOperation, type Operation } from '../../../core/operation.ts';
import { EXAMPLE } from '../../../core/examples.ts';
import { IdParams } from '../../../core/schema.ts';
import type { AudienceChanges } from './changes.ts';
import {
  AudienceListSchema,
  AudienceSchema,
  BulkCreateBody,
  BulkCreateResponse,
  CreateAudienceBody,
  ForkAudienceBody,
  ListAudiencesQuery,
  PatchAudienceBody,
  RefreshAudienceBody,
  RefreshAudienceResponse,
} from './schemas.ts';
import type { AudienceService } from './service.ts';

const tags = ['Audiences'];

export function audienceOperations(deps: { audiences: AudienceService; changes: AudienceChanges }): Operation[] {
  const { audiences, changes } = deps;
  return [
    defineOperation({
      id: 'createAudience',
      method: 'POST',
      path: '/v1/audiences',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Compose an audience from existing segments',
      description:
        'Included segments combine by set_logic (union or intersection); excluded segments are always subtracted. The audience expires 90 days after creation. ' +
        '400 MISSING_SEGMENTS without an included segment; 404 SEGMENT_NOT_FOUND; 409 SEGMENT_ARCHIVED; 400 INVALID_CAMPAIGN_ID (nothing created). Free.',
      input: { body: CreateAudienceBody },
      status: 201,
      responses: { 201: AudienceSchema },
      errors: ['MISSING_SEGMENTS', 'SEGMENT_NOT_FOUND', 'SEGMENT_ARCHIVED', 'INVALID_CAMPAIGN_ID', 'DATA_RELEASE_UNAVAILABLE'],
      agent: { tool: 'create_audience' },
      examples: [
        {
          name: 'compose',
          summary: 'One segment minus another',
          request: {
            body: {
              name: 'CA homeowners, not the spare list',
              segment_ids: [EXAMPLE.filterSegmentId],
              excluded_segment_ids: [EXAMPLE.spareSegmentId],
              set_logic: 'union',
            },
          },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { body }) => audiences.create(callerOf(ctx), body),
    }),

    defineOperation({
      id: 'bulkCreateAudiences',
      method: 'POST',
      path: '/v1/audiences/bulk-create',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Create up to 25 audiences from existing segments',
      description:
        'Items naming a missing, deleted, inaccessible or archived segment are reported in `errors` and not created; no new segments are created. ' +
        'When record_count is omitted it is computed: a single included segment takes its stored count, others are counted now; a count still running after a few seconds leaves record_count null and lands later.',
      input: { body: BulkCreateBody },
      status: 200,
      responses: { 200: BulkCreateResponse },
      errors: ['INVALID_CAMPAIGN_ID', 'DATA_RELEASE_UNAVAILABLE'],
      agent: false,
      examples: [
        {
          name: 'two',
          summary: 'Two audiences, one naming a missing segment',
          request: {
            body: {
              audiences: [
                { name: 'A', segment_ids: [EXAMPLE.filterSegmentId] },
                { name: 'B', segment_ids: ['seg_doesNotExist0000000'] },
              ],
            },
          },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => audiences.bulkCreate(callerOf(ctx), body),
    }),

    defineOperation({
      id: 'listAudiences',
      method: 'GET',
      path: '/v1/audiences',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'List audiences (newest first, or newest link first with campaign_id)',
      description:
        'Archived audiences are hidden unless include_archived. Follow next_cursor until null; pages may be shorter than limit. A cursor is valid only with the same campaign_id / unlinked filter ' +
        '(400 INVALID_CURSOR). 400 CONFLICTING_FILTERS for campaign_id with unlinked; 400 INVALID_CAMPAIGN_ID for an unknown campaign.',
      input: { query: ListAudiencesQuery },
      status: 200,
      responses: { 200: AudienceListSchema },
      errors: ['INVALID_CURSOR', 'CONFLICTING_FILTERS', 'INVALID_CAMPAIGN_ID'],
      agent: { tool: 'list_audiences' },
      examples: [
        {
          name: 'campaign',
          summary: 'Audiences of one campaign',
          request: { query: { campaign_id: EXAMPLE.campaignId } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { query }) => audiences.list(callerOf(ctx), query),
    }),

    defineOperation({
      id: 'getAudience',
      method: 'GET',
      path: '/v1/audiences/{id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Get an audience',
      description:
        'Its composition with segment summaries (best effort: deleted segments are skipped), counts, snapshot version, expiry and campaign.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: AudienceSchema },
      errors: ['AUDIENCE_NOT_FOUND'],
      agent: { tool: 'get_audience' },
      examples: [{ name: 'get', summary: 'An audience', request: { params: { id: EXAMPLE.audienceId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => audiences.get(callerOf(ctx), params.id),
    }),

    defineOperation({
      id: 'patchAudience',
      method: 'PATCH',
      path: '/v1/audiences/{id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Rename, archive or reactivate an audience',
      description:
        'Reactivating restores the status it had before archiving, unless it expired meanwhile. Disallowed moves answer 409 INVALID_STATUS_TRANSITION.',
      input: { params: IdParams, body: PatchAudienceBody },
      status: 200,
      responses: { 200: AudienceSchema },
      errors: ['AUDIENCE_NOT_FOUND', 'INVALID_STATUS_TRANSITION'],
      agent: false,
      examples: [
        {
          name: 'rename',
          summary: 'Rename',
          request: { params: { id: EXAMPLE.spareAudienceId }, body: { name: 'Q4 prospects' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => audiences.patch(callerOf(ctx), params.id, body),
    }),

    defineOperation({
      id: 'countAudience',
      method: 'POST',
      path: '/v1/audiences/{id}/count',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Count the current snapshot',
      description:
        'Counts the composition now and stores the count on the snapshot; a count that overruns the deadline lands later (record_count_reason `counting`). Counts below the privacy floor are null. ' +
        'A count statement past WAREHOUSE_STATEMENT_TIMEOUT_MS is stopped: 503 QUERY_TIMEOUT, and the audience shows `count_failed`.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: AudienceSchema },
      errors: ['AUDIENCE_NOT_FOUND', 'compute_limit_exceeded', 'QUERY_TIMEOUT'],
      agent: { tool: 'count_audience' },
      examples: [{ name: 'count', summary: 'Recount', request: { params: { id: EXAMPLE.audienceId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => audiences.count(callerOf(ctx), params.id),
    }),

    defineOperation({
      id: 'refreshAudience',
      method: 'POST',
      path: '/v1/audiences/{id}/refresh',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Refresh one member segment and take a new snapshot',
      description:
        'Bumps snapshot_version, renews the 90-day expiry and clears record_count (recount with POST /v1/audiences/{id}/count). Only the named segment is touched; ' +
        'a matched, similarity or propensity member makes the audience pending. 400 SEGMENT_ID_REQUIRED, SEGMENT_NOT_A_MEMBER, UNKNOWN_SUBTYPE; 404 SEGMENT_NOT_FOUND; 409 SEGMENT_ARCHIVED, SHARED_SOURCE_DATA.',
      input: { params: IdParams, body: Type.Optional(RefreshAudienceBody) },
      status: 200,
      responses: { 200: RefreshAudienceResponse },
      errors: [
        'AUDIENCE_NOT_FOUND',
        'SEGMENT_ID_REQUIRED',
        'SEGMENT_NOT_A_MEMBER',
        'UNKNOWN_SUBTYPE',
        'UNSUPPORTED_INPUT_COMPRESSION',
        'SEGMENT_NOT_FOUND',
        'SEGMENT_ARCHIVED',
        'SHARED_SOURCE_DATA',
        'INVALID_STATUS_TRANSITION',
        'MISSING_POSITIVE_CLASS_ID',
        'WORKFLOW_LAUNCH_FAILED',
      ],
      agent: { tool: 'refresh_audience' },
      examples: [
        {
          name: 'refresh',
          summary: 'Refresh the filter member',
          request: { params: { id: EXAMPLE.audienceId }, body: { segment_id: EXAMPLE.filterSegmentId } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => changes.refresh(callerOf(ctx), params.id, body ?? {}),
    }),

    defineOperation({
      id: 'forkAudience',
      method: 'POST',
      path: '/v1/audiences/{id}/fork',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Fork an audience',
      description: 'A new audience with the same composition, recording parent_audience_id and parent_snapshot_version.',
      input: { params: IdParams, body: Type.Optional(ForkAudienceBody) },
      status: 201,
      responses: { 201: AudienceSchema },
      errors: ['AUDIENCE_NOT_FOUND', 'MISSING_SEGMENTS', 'INVALID_CAMPAIGN_ID'],
      agent: false,
      examples: [
        {
          name: 'fork',
          summary: 'Fork for a variant',
          request: { params: { id: EXAMPLE.audienceId }, body: { name: 'Variant B' } },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { params, body }) => changes.fork(callerOf(ctx), params.id, body ?? {}),
    }),
  ];
}
