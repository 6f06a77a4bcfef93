import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { asDoc } from './as-doc.ts';
import type { SegmentOperations } from './operations.ts';
import {
  CreateSegmentBody, CreatedSegmentSchema, DeleteSegmentQuery, DuplicateSegmentBody, ListSegmentsQuery, PatchSegmentBody, RefreshSegmentBody,
  RefreshedSegmentSchema, SegmentIdParams, SegmentListSchema, SegmentSchema,
} from './schemas.ts';
import type { SegmentService } from './service.ts';

const tags = ['Segments'];

export function segmentRoutes(deps: { segments: SegmentService; operations: SegmentOperations }): FastifyPluginAsyncTypebox {
  const { segments, operations } = deps;
  return async (app) => {
    app.post('/v1/segments', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Create a segment (filter subtype)',
        description: 'Filters are validated against the live catalog (400 INVALID_FILTER with issues; 502 FILTER_CATALOG_UNAVAILABLE, nothing created). ' +
          'record_limit caps a filter segment to a stable pseudo-random subset and needs every OR branch narrowed by State, City or ZIP to at most 100 ZIP3 regions ' +
          '(400 CAP_GEOGRAPHY_REQUIRED; 400 RECORD_LIMIT_UNSUPPORTED on other subtypes). create_audience (default true) returns audience_id. ' +
          'ephemeral creates a free scratch segment expiring after ttl_hours (default 24). Counts below 50 are null with record_count_reason.',
        body: CreateSegmentBody, response: { 201: CreatedSegmentSchema, ...errorResponses([400, 502, 503]) },
      },
    }, async (request, reply) => {
      reply.status(201);
      return asDoc(segments.create(principalOf(request), request.body as never));
    });

    app.get('/v1/segments', {
      config: { scope: 'discovery' },
      schema: {
        tags, summary: 'List segments (newest first)', description: 'Archived segments are hidden unless include_archived. Follow next_cursor until null.',
        querystring: ListSegmentsQuery, response: { 200: SegmentListSchema, ...errorResponses([400]) },
      },
    }, async (request) => asDoc(segments.list(principalOf(request), request.query)));

    app.get('/v1/segments/:id', {
      config: { scope: 'discovery' },
      schema: { tags, summary: 'Get a segment with usage stats and lineage', params: SegmentIdParams, response: { 200: SegmentSchema, ...errorResponses([404]) } },
    }, async (request) => asDoc(segments.get(principalOf(request), request.params.id)));

    app.patch('/v1/segments/:id', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Rename, archive / reactivate, or edit the filters of a segment',
        description: 'Editing filters or record_limit bumps current_version and recounts. Moves the state table does not allow answer 409 INVALID_STATUS_TRANSITION.',
        params: SegmentIdParams, body: PatchSegmentBody, response: { 200: SegmentSchema, ...errorResponses([400, 404, 409, 502]) },
      },
    }, async (request) => asDoc(operations.patch(principalOf(request), request.params.id, request.body)));

    app.post('/v1/segments/:id/refresh', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Refresh a segment',
        description: 'Filter segments: a no-op (refreshed false) when nothing changed and force is not set; otherwise the version is bumped, the count redone and the 90-day TTL reset. ' +
          'Audiences using it are listed in affected_audiences and not auto-refreshed. 409 SEGMENT_ARCHIVED; 409 SHARED_SOURCE_DATA for a matched duplicate.',
        params: SegmentIdParams, body: Type.Optional(RefreshSegmentBody), response: { 200: RefreshedSegmentSchema, ...errorResponses([400, 404, 409]) },
      },
    }, async (request) => asDoc(operations.refresh(principalOf(request), request.params.id, request.body ?? {})));

    app.delete('/v1/segments/:id', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Delete a segment',
        description: '409 SEGMENT_IN_USE (audience_count, campaign_count, audiences) when active audiences use it, unless confirm_impact=true; those audiences then lose it from their composition and count. No restore; a second delete is 404.',
        params: SegmentIdParams, querystring: DeleteSegmentQuery, response: { 204: Type.Null(), ...errorResponses([404, 409]) },
      },
    }, async (request, reply) => {
      await operations.remove(principalOf(request), request.params.id, request.query.confirm_impact ?? false);
      reply.status(204).send(null);
    });

    app.post('/v1/segments/:id/duplicate', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Duplicate a segment',
        description: 'A new segment with lineage to its parent (parent, root ancestor, pinned parent version). A matched duplicate shares its source data and cannot be refreshed on its own.',
        params: SegmentIdParams, body: Type.Optional(DuplicateSegmentBody), response: { 201: CreatedSegmentSchema, ...errorResponses([400, 404]) },
      },
    }, async (request, reply) => {
      reply.status(201);
      return asDoc(operations.duplicate(principalOf(request), request.params.id, request.body ?? {}));
    });
  };
}
