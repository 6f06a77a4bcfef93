import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { asDoc } from '../segments/as-doc.ts';
import type { AudienceOperations } from './operations.ts';
import {
  AudienceIdParams, AudienceListSchema, AudienceSchema, BulkCreateBody, BulkCreateResponse, CreateAudienceBody, ForkAudienceBody,
  ListAudiencesQuery, PatchAudienceBody, RefreshAudienceBody, RefreshAudienceResponse,
} from './schemas.ts';
import type { AudienceService } from './service.ts';

const tags = ['Audiences'];

export function audienceRoutes(deps: { audiences: AudienceService; operations: AudienceOperations }): FastifyPluginAsyncTypebox {
  const { audiences, operations } = deps;
  return async (app) => {
    app.post('/v1/audiences', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Compose an audience from existing segments',
        description: 'Included segments combine by set_logic (union or intersection); excluded segments are always subtracted. 400 MISSING_SEGMENTS without an included segment; 404 SEGMENT_NOT_FOUND; 409 SEGMENT_ARCHIVED.',
        body: CreateAudienceBody, response: { 201: AudienceSchema, ...errorResponses([400, 404, 409, 503]) },
      },
    }, async (request, reply) => {
      reply.status(201);
      return asDoc(audiences.create(principalOf(request), request.body));
    });

    app.post('/v1/audiences/bulk-create', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Create up to 25 audiences from existing segments',
        description: 'Items naming a missing, deleted, inaccessible or archived segment are reported in `errors` and not created. A count still running after a few seconds leaves record_count null; it lands later.',
        body: BulkCreateBody, response: { 200: BulkCreateResponse, ...errorResponses([400, 503]) },
      },
    }, async (request) => asDoc(audiences.bulkCreate(principalOf(request), request.body)));

    app.get('/v1/audiences', {
      config: { scope: 'discovery' },
      schema: {
        tags, summary: 'List audiences (newest first, or newest link first with campaign_id)',
        description: 'Archived audiences are hidden unless include_archived. Follow next_cursor until null. A cursor is valid only with the same campaign_id / unlinked filter (400 INVALID_CURSOR). 400 CONFLICTING_FILTERS for campaign_id with unlinked; 400 INVALID_CAMPAIGN_ID for an unknown campaign.',
        querystring: ListAudiencesQuery, response: { 200: AudienceListSchema, ...errorResponses([400]) },
      },
    }, async (request) => asDoc(audiences.list(principalOf(request), request.query)));

    app.get('/v1/audiences/:id', {
      config: { scope: 'discovery' },
      schema: { tags, summary: 'Get an audience', params: AudienceIdParams, response: { 200: AudienceSchema, ...errorResponses([404]) } },
    }, async (request) => asDoc(audiences.get(principalOf(request), request.params.id)));

    app.patch('/v1/audiences/:id', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Rename, archive or reactivate an audience', description: 'Disallowed moves answer 409 INVALID_STATUS_TRANSITION.',
        params: AudienceIdParams, body: PatchAudienceBody, response: { 200: AudienceSchema, ...errorResponses([400, 404, 409]) },
      },
    }, async (request) => asDoc(audiences.patch(principalOf(request), request.params.id, request.body)));

    app.post('/v1/audiences/:id/count', {
      config: { scope: 'creator' },
      schema: { tags, summary: 'Count the current snapshot', params: AudienceIdParams, response: { 200: AudienceSchema, ...errorResponses([404]) } },
    }, async (request) => asDoc(audiences.count(principalOf(request), request.params.id)));

    app.post('/v1/audiences/:id/refresh', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Refresh one member segment and take a new snapshot',
        description: 'Bumps snapshot_version, renews the 90-day expiry and clears record_count (recount with POST /v1/audiences/{id}/count). 400 SEGMENT_ID_REQUIRED, SEGMENT_NOT_A_MEMBER, UNKNOWN_SUBTYPE; 404 SEGMENT_NOT_FOUND; 409 SEGMENT_ARCHIVED, SHARED_SOURCE_DATA.',
        params: AudienceIdParams, body: RefreshAudienceBody, response: { 200: RefreshAudienceResponse, ...errorResponses([400, 404, 409]) },
      },
    }, async (request) => asDoc(operations.refresh(principalOf(request), request.params.id, request.body ?? {})));

    app.post('/v1/audiences/:id/fork', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Fork an audience', description: 'A new audience with the same composition, recording parent_audience_id and parent_snapshot_version.',
        params: AudienceIdParams, body: ForkAudienceBody, response: { 201: AudienceSchema, ...errorResponses([400, 404]) },
      },
    }, async (request, reply) => {
      reply.status(201);
      return asDoc(operations.fork(principalOf(request), request.params.id, request.body ?? {}));
    });
  };
}
