/** Operations on segments (spec 4.3, 4.11). */
import { Type } from 'typebox';
import { callerOf, defineOperation, reply, type AgentFollow, type Operation } from '../../../core/operation.ts';
import { EXAMPLE } from '../../../core/examples.ts';
import { IdParams, NoContent } from '../../../core/schema.ts';
import type { SegmentChanges } from './changes.ts';
import {
  CreateSegmentBody,
  CreatedSegmentSchema,
  DeleteSegmentQuery,
  DuplicateSegmentBody,
  ListSegmentsQuery,
  PatchSegmentBody,
  RefreshSegmentBody,
  RefreshedSegmentSchema,
  SegmentListSchema,
  SegmentSchema,
} from './schemas.ts';
import type { SegmentService } from './service.ts';

const tags = ['Segments'];

/**
 * How an agent task follows a segment it created or refreshed (a matched upload, a similarity or
 * propensity workflow): pending is still working, failed carries error_message, anything else is done.
 */
function segmentFollow(segments: SegmentService): AgentFollow {
  return {
    read: (ctx, answered: { segment_id: string }) => segments.get(callerOf(ctx), answered.segment_id),
    progress: (seg: { status: string; error_message?: string }) =>
      seg.status === 'pending'
        ? { state: 'working' }
        : seg.status === 'failed'
          ? { state: 'failed', reason: seg.error_message ?? 'the segment failed' }
          : { state: 'completed' },
  };
}

export function segmentOperations(deps: { segments: SegmentService; changes: SegmentChanges }): Operation[] {
  const { segments, changes } = deps;
  return [
    defineOperation({
      id: 'createSegment',
      method: 'POST',
      path: '/v1/segments',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Create a segment',
      description:
        '`filter` (default): filters are validated against the live catalog (400 INVALID_FILTER with issues; 502 FILTER_CATALOG_UNAVAILABLE, nothing created); ' +
        'record_limit caps membership to a stable pseudo-random subset and needs every OR branch narrowed by State, City or ZIP to at most 100 ZIP3 regions ' +
        '(400 CAP_GEOGRAPHY_REQUIRED; 400 RECORD_LIMIT_UNSUPPORTED on other subtypes); `ephemeral` makes a free scratch segment expiring after `ttl_hours` (default 24). ' +
        '`matched`: a pending segment with signed upload URL(s), as POST /v1/match/file. ' +
        '`similarity` (seed_segment_id or seed_description, not both) and `propensity` (positive_class_segment_id; model_type, excluded_columns, model_name): ' +
        'a pending segment with workflow_run_id, built by a workflow (GET /v1/workflows/{id}; hitl pauses at review gates); target_size (ours) defaults to ten times the ' +
        'seed, capped; a seed or positive class the privacy layer would not show (below the floor, by its sticky threshold) is 422; generation_metadata_id attaches a completed run (active at once). Fields of another subtype are refused (400). ' +
        'create_audience (default true for filter and matched) returns audience_id; an unknown campaign_id is 400 INVALID_CAMPAIGN_ID and nothing is created. ' +
        'Counts below the privacy floor are null with record_count_reason. Free: creating a segment is not billed.',
      input: { body: CreateSegmentBody },
      status: 201,
      responses: { 201: CreatedSegmentSchema },
      errors: [
        'INVALID_FILTER',
        'CAP_GEOGRAPHY_REQUIRED',
        'RECORD_LIMIT_UNSUPPORTED',
        'UNKNOWN_SUBTYPE',
        'INVALID_CAMPAIGN_ID',
        'INVALID_WEBHOOK_URL',
        'UNSUPPORTED_INPUT_COMPRESSION',
        'FILTER_CATALOG_UNAVAILABLE',
        'DATA_RELEASE_UNAVAILABLE',
        'SEGMENT_NOT_FOUND',
        'SEED_SEGMENT_NOT_READY',
        'AGGREGATION_FLOOR_NOT_MET',
        'INVALID_SEED_DESCRIPTION',
        'INVALID_EXCLUDED_COLUMNS',
        'GENERATION_METADATA_NOT_FOUND',
        'WORKFLOW_LAUNCH_FAILED',
      ],
      agent: { tool: 'create_segment', follow: segmentFollow(segments) },
      examples: [
        {
          name: 'similarity',
          summary: 'Lookalikes of a saved segment (the seed is excluded)',
          request: { body: { name: 'Lookalikes of CA', subtype: 'similarity', seed_segment_id: EXAMPLE.filterSegmentId } },
          response: { status: 201 },
        },
        {
          name: 'filter',
          summary: 'Homeowners aged 30-45 in California, with a wrapper audience',
          request: {
            body: {
              name: 'CA homeowners 30-45',
              filters: [
                { field: 'state', op: '=', value: 'CA' },
                { field: 'age', op: 'BETWEEN', value: [30, 45] },
              ],
            },
          },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { body }) => segments.create(callerOf(ctx), body),
    }),

    defineOperation({
      id: 'listSegments',
      method: 'GET',
      path: '/v1/segments',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'List segments (newest first)',
      description:
        'Archived segments are hidden unless include_archived. Follow next_cursor until null (400 INVALID_CURSOR for a cursor of another list).',
      input: { query: ListSegmentsQuery },
      status: 200,
      responses: { 200: SegmentListSchema },
      errors: ['INVALID_CURSOR'],
      agent: { tool: 'list_segments' },
      examples: [{ name: 'first-page', summary: 'The newest ten', request: { query: { limit: 10 } }, response: { status: 200 } }],
      handler: async (ctx, { query }) => segments.list(callerOf(ctx), query),
    }),

    defineOperation({
      id: 'getSegment',
      method: 'GET',
      path: '/v1/segments/{id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Get a segment with usage stats and lineage',
      description:
        'Also `audience_count` (active audiences referencing it) and `campaign_count` (distinct campaigns of those audiences). Poll it while a segment is pending.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: SegmentSchema },
      errors: ['SEGMENT_NOT_FOUND'],
      agent: { tool: 'get_segment' },
      examples: [
        { name: 'get', summary: 'A filter segment', request: { params: { id: EXAMPLE.filterSegmentId } }, response: { status: 200 } },
      ],
      handler: async (ctx, { params }) => segments.get(callerOf(ctx), params.id),
    }),

    defineOperation({
      id: 'patchSegment',
      method: 'PATCH',
      path: '/v1/segments/{id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Rename, archive / unarchive, or edit the filters of a segment',
      description:
        'Editing filters or record_limit (filter segments) bumps current_version and recounts. Unarchiving restores the status the segment had before it was archived. ' +
        'Moves the state table does not allow answer 409 INVALID_STATUS_TRANSITION.',
      input: { params: IdParams, body: PatchSegmentBody },
      status: 200,
      responses: { 200: SegmentSchema },
      errors: [
        'SEGMENT_NOT_FOUND',
        'INVALID_FILTER',
        'CAP_GEOGRAPHY_REQUIRED',
        'RECORD_LIMIT_UNSUPPORTED',
        'SEGMENT_ARCHIVED',
        'INVALID_STATUS_TRANSITION',
        'FILTER_CATALOG_UNAVAILABLE',
      ],
      agent: false,
      examples: [
        {
          name: 'rename',
          summary: 'Rename a segment',
          request: { params: { id: EXAMPLE.spareSegmentId }, body: { name: 'Renamed segment' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => changes.patch(callerOf(ctx), params.id, body),
    }),

    defineOperation({
      id: 'refreshSegment',
      method: 'POST',
      path: '/v1/segments/{id}/refresh',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Refresh a segment',
      description:
        'Filter: a no-op (refreshed false) when nothing changed and force is not set; otherwise the version is bumped, record_count cleared (the new count lands shortly) and the 90-day TTL reset. ' +
        'Matched: back to pending with fresh 24-hour upload URL(s) (with hitl, staged until confirmed). Audiences using it are listed in affected_audiences and not auto-refreshed. ' +
        'Similarity and propensity: back to pending with a new workflow_run_id, rebuilt from the stored seed or positive class (422 MISSING_POSITIVE_CLASS_ID for a legacy ' +
        'propensity segment; 502 WORKFLOW_LAUNCH_FAILED changes nothing: retry). 409 SEGMENT_ARCHIVED; 409 SHARED_SOURCE_DATA for a matched duplicate.',
      input: { params: IdParams, body: Type.Optional(RefreshSegmentBody) },
      status: 200,
      responses: { 200: RefreshedSegmentSchema },
      errors: [
        'SEGMENT_NOT_FOUND',
        'SEGMENT_ARCHIVED',
        'SHARED_SOURCE_DATA',
        'UNKNOWN_SUBTYPE',
        'UNSUPPORTED_INPUT_COMPRESSION',
        'DATA_RELEASE_UNAVAILABLE',
        'MISSING_POSITIVE_CLASS_ID',
        'WORKFLOW_LAUNCH_FAILED',
      ],
      agent: { tool: 'refresh_segment', follow: segmentFollow(segments) },
      examples: [
        {
          name: 'force',
          summary: 'Bump the version even if nothing changed',
          request: { params: { id: EXAMPLE.filterSegmentId }, body: { force: true } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => segments.refresh(callerOf(ctx), params.id, body ?? {}),
    }),

    defineOperation({
      id: 'deleteSegment',
      method: 'DELETE',
      path: '/v1/segments/{id}',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Delete a segment',
      description:
        '409 SEGMENT_IN_USE (audience_count, campaign_count, audiences) when active audiences use it, unless confirm_impact=true; those audiences then lose it from their composition and count. ' +
        'No restore; a second delete is 404.',
      input: { params: IdParams, query: DeleteSegmentQuery },
      status: 204,
      responses: { 204: NoContent },
      errors: ['SEGMENT_NOT_FOUND', 'SEGMENT_IN_USE'],
      agent: false,
      examples: [
        {
          name: 'delete',
          summary: 'Delete an unused segment',
          request: { params: { id: EXAMPLE.deletableSegmentId } },
          response: { status: 204 },
        },
      ],
      handler: async (ctx, { params, query }) => {
        await changes.remove(callerOf(ctx), params.id, query.confirm_impact ?? false);
        return reply(204, null);
      },
    }),

    defineOperation({
      id: 'duplicateSegment',
      method: 'POST',
      path: '/v1/segments/{id}/duplicate',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Duplicate a segment',
      description:
        'A new segment with lineage to its parent (parent, root ancestor, pinned parent version). A matched duplicate shares its source data and cannot be refreshed on its own.',
      input: { params: IdParams, body: Type.Optional(DuplicateSegmentBody) },
      status: 201,
      responses: { 201: CreatedSegmentSchema },
      errors: ['SEGMENT_NOT_FOUND', 'INVALID_CAMPAIGN_ID', 'DATA_RELEASE_UNAVAILABLE'],
      agent: false,
      examples: [
        {
          name: 'copy',
          summary: 'Copy with a new name',
          request: { params: { id: EXAMPLE.filterSegmentId }, body: { name: 'CA homeowners (copy)' } },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { params, body }) => changes.duplicate(callerOf(ctx), params.id, body ?? {}),
    }),
  ];
}
