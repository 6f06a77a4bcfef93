/** Operations of file matching (spec 4.3-4.5): start, upload, analyze, confirm or cancel mappings, progress, failure. */
import { Type } from 'typebox';
import type { Caller } from '../../core/caller.ts';
import { callerOf, defineOperation, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams } from '../../core/schema.ts';
import type { MappingService } from './mappings.ts';
import {
  AnalysisResponse,
  CancelResponse,
  MappingsBody,
  MappingsResponse,
  MatchFileBody,
  MatchFileHeaders,
  MatchFileResponse,
  MatchIdParams,
  MatchStatusResponse,
  SegmentIdParams,
  UploadFailedBody,
  UploadFailedResponse,
  UploadParams,
  UploadQuery,
  UploadResponse,
} from './schemas.ts';
import type { FileMatchService } from './service.ts';
import type { createUploadHandler } from './upload.ts';

const tags = ['Matching'];
/** Uploads stream to disk, so the limit is about disk, not memory. */
const UPLOAD_BODY_LIMIT = 50 * 1024 ** 3;

/** The integrations area's execution-key runs (X-Integration-Execution-Key), as file matching uses them. */
export interface PartnerRuns {
  start<D extends { segment_id: string }>(
    caller: Caller,
    key: string,
    body: unknown,
    create: () => Promise<D>,
    replay: (stored: D) => Promise<D>,
  ): Promise<D & { integration_run_id: string }>;
}

export function fileMatchOperations(deps: {
  files: FileMatchService;
  mappings: MappingService;
  upload: ReturnType<typeof createUploadHandler>;
  partnerRuns?: PartnerRuns;
}): Operation[] {
  const { files, mappings } = deps;
  const mappingOps = (['segments', 'audiences'] as const).flatMap((kind) => {
    const Kind = kind === 'segments' ? 'Segment' : 'Audience';
    const exampleId = kind === 'segments' ? EXAMPLE.matchedSegmentId : EXAMPLE.matchedAudienceId;
    return [
      defineOperation({
        id: `confirm${Kind}Mappings`,
        method: 'POST',
        path: `/v1/${kind}/{id}/mappings`,
        tags: [`${Kind}s`],
        access: 'creator',
        effect: 'write',
        summary: 'Confirm column mappings',
        description:
          '"(skip)" excludes a column even when it is named like a standard attribute. For a staged (hitl) upload, moves the file into place and starts resolution; ' +
          '500 STAGING_COPY_FAILED leaves everything unchanged (retry).' +
          (kind === 'audiences' ? " Acts on the audience's included matched segment." : ''),
        input: { params: IdParams, body: MappingsBody },
        status: 200,
        responses: { 200: MappingsResponse },
        errors: [
          kind === 'segments' ? 'SEGMENT_NOT_FOUND' : 'AUDIENCE_NOT_FOUND',
          'NOT_A_MATCHED_UPLOAD',
          'INVALID_COLUMN_MAPPING',
          'STAGING_COPY_FAILED',
          'FILE_NOT_YET_UPLOADED',
          'INVALID_FILE',
          'FILE_TOO_LARGE_UNCOMPRESSED',
          'LINE_TOO_LONG',
        ],
        agent: false,
        examples: [
          {
            name: 'confirm',
            summary: 'Map a column, skip another',
            request: { params: { id: exampleId }, body: { column_mappings: { mail: 'email', notes: '(skip)' } } },
            response: { status: 200 },
          },
        ],
        handler: async (ctx, { params, body }) =>
          kind === 'segments'
            ? mappings.confirm(callerOf(ctx), params.id, body.column_mappings)
            : mappings.confirmForAudience(callerOf(ctx), params.id, body.column_mappings),
      }),
      defineOperation({
        id: `cancel${Kind}Mappings`,
        method: 'POST',
        path: `/v1/${kind}/{id}/mappings/cancel`,
        tags: [`${Kind}s`],
        access: 'creator',
        effect: 'write',
        summary: 'Abort a staged upload (segment untouched)',
        description: '409 NO_STAGED_UPLOAD when nothing is staged. The segment keeps its previous members and status.',
        input: { params: IdParams },
        status: 200,
        responses: { 200: CancelResponse },
        errors: [kind === 'segments' ? 'SEGMENT_NOT_FOUND' : 'AUDIENCE_NOT_FOUND', 'NOT_A_MATCHED_UPLOAD', 'NO_STAGED_UPLOAD'],
        agent: false,
        examples: [{ name: 'cancel', summary: 'Cancel', request: { params: { id: exampleId } }, response: { status: 409 } }],
        handler: async (ctx, { params }) =>
          kind === 'segments' ? mappings.cancel(callerOf(ctx), params.id) : mappings.cancelForAudience(callerOf(ctx), params.id),
      }),
    ];
  });

  return [
    defineOperation({
      id: 'createFileMatch',
      method: 'POST',
      path: '/v1/match/file',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Start a file match: a pending matched segment with signed upload URL(s)',
      description:
        'Every field optional (an empty body or none is a CSV match with defaults). upload_url (30 minutes) or index-ordered upload_urls when shard_count > 1. ' +
        'PUT the file bytes with no Authorization header; for gzip send raw gzip bytes. 400 UNSUPPORTED_INPUT_COMPRESSION for gzip with avro; 400 INVALID_CAMPAIGN_ID (nothing created). ' +
        'Creating, uploading, analyzing and matching are free; the match is billed once, on the first successful delivery involving it. ' +
        'An Idempotency-Key replay (same caller, same body, 24 hours) returns the same segment with re-signed URLs. ' +
        'X-Integration-Execution-Key (OAuth access tokens of a pre-registered confidential partner client only; 403 INTEGRATION_EXECUTION_KEY_NOT_ALLOWED otherwise) ' +
        'creates a private integration run of the organization carrying the client id and answers its integration_run_id; the same key again (same body) ' +
        'replays the same run and match with fresh upload URLs, never a second match or charge (another body: 409 IDEMPOTENCY_KEY_CONFLICT).',
      input: { body: Type.Optional(MatchFileBody), headers: MatchFileHeaders },
      status: 201,
      responses: { 201: MatchFileResponse },
      errors: [
        'UNSUPPORTED_INPUT_COMPRESSION',
        'INVALID_CAMPAIGN_ID',
        'INVALID_WEBHOOK_URL',
        'DATA_RELEASE_UNAVAILABLE',
        'IDEMPOTENCY_KEY_CONFLICT',
        'INVALID_IDEMPOTENCY_KEY',
        'INTEGRATION_EXECUTION_KEY_NOT_ALLOWED',
        'INVALID_INTEGRATION_EXECUTION_KEY',
        'IDEMPOTENT_REQUEST_IN_PROGRESS',
      ],
      idempotency: { replay: async (stored, ctx) => files.refreshUploadUrls(callerOf(ctx).orgId, stored) },
      agent: {
        tool: 'start_file_match',
        // An agent task follows the match until it completed, failed or was cancelled (the upload comes first: the answer holds its URL).
        follow: {
          read: (ctx, created: { segment_id: string }) => files.status(callerOf(ctx), created.segment_id),
          progress: (m: { matching_status?: string; status?: string; error_message?: string | null }) => {
            const state = m.matching_status ?? (m.status === 'pending' ? 'awaiting_upload' : m.status);
            if (state === 'completed' || state === 'active') return { state: 'completed' };
            if (state === 'failed' || state === 'cancelled')
              return { state: 'failed', reason: m.error_message ?? `the file match ${state === 'failed' ? 'failed' : 'was cancelled'}` };
            return { state: 'working' };
          },
        },
      },
      examples: [
        {
          name: 'csv',
          summary: 'A gzip CSV in one shard',
          request: { body: { name: 'CRM export', file_format: 'csv', compression: 'gzip' } },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { body, headers }) => {
        const key = headers['x-integration-execution-key'];
        if (key === undefined || !deps.partnerRuns) return files.create(callerOf(ctx), body ?? {});
        const caller = callerOf(ctx);
        return deps.partnerRuns.start(
          caller,
          key,
          body ?? {},
          () => files.create(caller, body ?? {}),
          (stored) => files.refreshUploadUrls(caller.orgId, stored),
        );
      },
    }),

    defineOperation({
      id: 'uploadShard',
      method: 'PUT',
      path: '/v1/uploads/{org}/{seg}/{version}/{shard}',
      tags,
      access: 'public',
      effect: 'write',
      summary: 'PUT {upload_url}: upload file bytes (signed URL; no Authorization header)',
      description:
        'The signature in the URL is the only credential, bound to one segment, upload version and shard. 403 UPLOAD_URL_EXPIRED / UPLOAD_URL_INVALID; ' +
        '409 UPLOAD_SUPERSEDED after a refresh; 410 UPLOAD_TARGET_GONE when the segment was deleted.',
      input: { params: UploadParams, query: UploadQuery },
      status: 200,
      responses: { 200: UploadResponse },
      errors: ['UPLOAD_URL_INVALID', 'UPLOAD_URL_EXPIRED', 'UPLOAD_SUPERSEDED', 'UPLOAD_ALREADY_RECEIVED', 'UPLOAD_TARGET_GONE'],
      rawBody: { description: 'The file bytes in the declared format (raw gzip bytes for gzip; no Content-Encoding)' },
      bodyLimit: UPLOAD_BODY_LIMIT,
      agent: false,
      examples: [
        {
          name: 'bad-signature',
          summary: 'A URL whose signature does not verify is refused',
          request: {
            params: { org: 'org_Example', seg: EXAMPLE.matchedSegmentId, version: '1', shard: '0' },
            query: { expires: '4102444800', signature: 'bad' },
            body: 'email\nann@example.com\n',
          },
          response: { status: 403 },
        },
      ],
      handler: async (_ctx, { params, query, raw }) => deps.upload({ params, query, body: raw as never }),
    }),

    defineOperation({
      id: 'getFileMatch',
      method: 'GET',
      path: '/v1/match/file/{match_id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'File match progress',
      description:
        'matching_status (awaiting_upload, awaiting_mappings, queued, matching, completed, failed, cancelled), mapping_warnings, progress, and the counts once completed.',
      input: { params: MatchIdParams },
      status: 200,
      responses: { 200: MatchStatusResponse },
      errors: ['SEGMENT_NOT_FOUND', 'NOT_A_MATCHED_UPLOAD'],
      agent: { tool: 'get_file_match' },
      examples: [
        {
          name: 'status',
          summary: 'Progress of a match',
          request: { params: { match_id: EXAMPLE.matchedSegmentId } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params }) => files.status(callerOf(ctx), params.match_id),
    }),

    defineOperation({
      id: 'analyzeFileMatch',
      method: 'POST',
      path: '/v1/match/{segment_id}/analyze',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Analyze the uploaded columns',
      description:
        '409 FILE_NOT_YET_UPLOADED before the upload (or after a cancelled staged upload). A 64-hex column is never mapped to raw email or phone.',
      input: { params: SegmentIdParams },
      status: 200,
      responses: { 200: AnalysisResponse },
      errors: [
        'SEGMENT_NOT_FOUND',
        'NOT_A_MATCHED_UPLOAD',
        'FILE_NOT_YET_UPLOADED',
        'INVALID_FILE',
        'FILE_TOO_LARGE_UNCOMPRESSED',
        'LINE_TOO_LONG',
      ],
      agent: false,
      examples: [
        {
          name: 'analyze',
          summary: 'Before the upload',
          request: { params: { segment_id: EXAMPLE.matchedSegmentId } },
          response: { status: 409 },
        },
      ],
      handler: async (ctx, { params }) => mappings.analyze(callerOf(ctx), params.segment_id),
    }),

    defineOperation({
      id: 'reportUploadFailed',
      method: 'POST',
      path: '/v1/segments/{id}/upload-failed',
      tags: ['Segments'],
      access: 'creator',
      effect: 'write',
      summary: 'Mark a matched upload failed',
      description:
        'pending -> failed (and the wrapper audience, or the given audience_id when it includes this segment); a repeat answers already_resolved true. 400 NOT_A_MATCHED_UPLOAD.',
      input: { params: IdParams, body: Type.Optional(UploadFailedBody) },
      status: 200,
      responses: { 200: UploadFailedResponse },
      errors: ['SEGMENT_NOT_FOUND', 'AUDIENCE_NOT_FOUND', 'NOT_A_MATCHED_UPLOAD', 'SEGMENT_NOT_A_MEMBER'],
      agent: false,
      examples: [
        {
          name: 'failed',
          summary: 'The client could not upload',
          request: { params: { id: EXAMPLE.failedUploadSegmentId }, body: { reason: 'source export failed' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => files.uploadFailed(callerOf(ctx), params.id, body ?? {}),
    }),

    ...mappingOps,
  ];
}
