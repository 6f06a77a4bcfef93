/** HTTP of file matching (spec 4.3-4.5). Routes parse, authorize and call one service method. */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { asDoc } from '../segments/as-doc.ts';
import type { MappingService } from './mappings.ts';
import {
  AnalysisResponse, CancelResponse, IdParams, MappingsBody, MappingsResponse, MatchFileBody, MatchFileResponse, MatchIdParams, MatchStatusResponse,
  SegmentIdParams, UploadFailedBody, UploadFailedResponse, UploadParams, UploadQuery, UploadResponse,
} from './schemas.ts';
import type { FileMatchService } from './service.ts';
import type { createUploadHandler } from './upload.ts';

const tags = ['Matching'];
/** Uploads stream to disk, so the limit is about disk, not memory. */
const UPLOAD_BODY_LIMIT = 50 * 1024 ** 3;

export function fileMatchRoutes(deps: { files: FileMatchService; mappings: MappingService; upload: ReturnType<typeof createUploadHandler> }): FastifyPluginAsyncTypebox {
  const { files, mappings } = deps;
  return async (app) => {
    app.post('/v1/match/file', {
      config: { scope: 'creator' },
      schema: {
        tags, summary: 'Start a file match: a pending matched segment with signed upload URL(s)',
        description: 'Every field optional. upload_url (30 minutes) or index-ordered upload_urls when shard_count > 1. PUT the file bytes with no Authorization header; for gzip send raw gzip bytes. ' +
          '400 UNSUPPORTED_INPUT_COMPRESSION for gzip with avro; 400 INVALID_CAMPAIGN_ID (nothing created). Idempotency-Key replays return the same segment with re-signed URLs.',
        body: MatchFileBody, response: { 201: MatchFileResponse, 200: MatchFileResponse, ...errorResponses([400, 409, 503]) },
      },
    }, async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const result = await files.createFromFile(principalOf(request), request.body ?? {}, typeof key === 'string' ? key : undefined);
      reply.status(result.statusCode as 201);
      return result.body as never;
    });

    app.get('/v1/match/file/:match_id', {
      config: { scope: 'discovery' },
      schema: { tags, summary: 'File match progress', params: MatchIdParams, response: { 200: MatchStatusResponse, ...errorResponses([404]) } },
    }, async (request) => asDoc(files.status(principalOf(request), request.params.match_id)));

    app.post('/v1/match/:segment_id/analyze', {
      config: { scope: 'discovery' },
      schema: {
        tags, summary: 'Analyze the uploaded columns', description: '409 FILE_NOT_YET_UPLOADED before the upload. A 64-hex column is never mapped to raw email/phone.',
        params: SegmentIdParams, response: { 200: AnalysisResponse, ...errorResponses([404, 409, 422]) },
      },
    }, async (request) => asDoc(mappings.analyze(principalOf(request), request.params.segment_id)));

    app.post('/v1/segments/:id/upload-failed', {
      config: { scope: 'creator' },
      schema: {
        tags: ['Segments'], summary: 'Mark a matched upload failed', description: 'pending -> failed (and the linked audience); a repeat answers already_resolved true. 400 NOT_A_MATCHED_UPLOAD.',
        params: IdParams, body: UploadFailedBody, response: { 200: UploadFailedResponse, ...errorResponses([404]) },
      },
    }, async (request) => asDoc(files.uploadFailed(principalOf(request), request.params.id, request.body ?? {})));

    for (const kind of ['segments', 'audiences'] as const) {
      app.post(`/v1/${kind}/:id/mappings`, {
        config: { scope: 'creator' },
        schema: {
          tags: [kind === 'segments' ? 'Segments' : 'Audiences'], summary: 'Confirm column mappings',
          description: '"(skip)" excludes a column even when it is named like a standard attribute. For a staged (hitl) upload, moves the file into place and starts resolution; 500 STAGING_COPY_FAILED leaves everything unchanged (retry).',
          params: IdParams, body: MappingsBody, response: { 200: MappingsResponse, ...errorResponses([404, 409]) },
        },
      }, async (request) => {
        const v = principalOf(request);
        return asDoc(kind === 'segments' ? mappings.confirm(v, request.params.id, request.body.column_mappings) : mappings.confirmForAudience(v, request.params.id, request.body.column_mappings));
      });
      app.post(`/v1/${kind}/:id/mappings/cancel`, {
        config: { scope: 'creator' },
        schema: { tags: [kind === 'segments' ? 'Segments' : 'Audiences'], summary: 'Abort a staged upload (segment untouched)', params: IdParams, response: { 200: CancelResponse, ...errorResponses([404, 409]) } },
      }, async (request) => {
        const v = principalOf(request);
        return asDoc(kind === 'segments' ? mappings.cancel(v, request.params.id) : mappings.cancelForAudience(v, request.params.id));
      });
    }

    // The signed upload target: its own context, so the pass-through body parser applies to it alone.
    await app.register(async (upload) => {
      upload.removeAllContentTypeParsers();
      upload.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
      upload.put('/v1/uploads/:org/:seg/:version/:shard', {
        config: { public: true },
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: {
          tags, summary: 'PUT {upload_url}: upload file bytes (signed URL; no Authorization header)',
          description: 'The signature in the URL is the only credential, bound to one segment, upload version and shard. 403 UPLOAD_URL_EXPIRED / UPLOAD_URL_INVALID; 409 UPLOAD_SUPERSEDED after a refresh.',
          params: UploadParams, querystring: UploadQuery, response: { 200: UploadResponse, ...errorResponses([403, 404, 409]) },
        },
      }, async (request) => {
        const body = (request.body as Readable | undefined) ?? request.raw;
        return asDoc(deps.upload({ path: request.url.split('?')[0]!, query: request.query as { expires?: string; signature?: string }, params: request.params as { org: string; seg: string; version: string; shard: string }, body }));
      });
    });
  };
}
