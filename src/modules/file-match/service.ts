/**
 * File matching (spec 4.5, 3): create a pending matched segment with signed upload URLs, refresh it,
 * report progress, and mark an upload failed. Segment rows change through the segments area's methods;
 * uploads: upload.ts; analysis and mappings: mappings.ts; resolution: resolve.ts.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import { HOUR, MINUTE, type Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { UrlSigner } from '../../objects/signed-urls.ts';
import {
  affectedNextStep,
  persistentExpiry,
  type CreateSegmentInput,
  type CreatedSegmentDoc,
  type RefreshSegmentInput,
  type RefreshedSegmentDoc,
  type SegmentRow,
  type SegmentsApi,
} from '../segments/index.ts';
import { matchedDetails, type MatchedDetails } from './details.ts';
import type { MatchStatusDoc } from './schemas.ts';
import { fileMatchStore, objectKeys, type FileMatchRow } from './store.ts';

export const CREATE_URL_TTL = 30 * MINUTE;
export const REFRESH_URL_TTL = 24 * HOUR;

/** What creates a matched segment: POST /v1/match/file, or POST /v1/segments with subtype matched. */
export type CreateMatchedInput = Partial<
  Pick<
    CreateSegmentInput,
    | 'name'
    | 'file_format'
    | 'compression'
    | 'create_audience'
    | 'campaign_id'
    | 'webhook_url'
    | 'hitl'
    | 'match_level'
    | 'spatial_mode'
    | 'shard_count'
    | 'visibility'
    | 'session_id'
  >
>;

export interface FileMatchDeps {
  db: Kysely<DB>;
  clock: Clock;
  segments: SegmentsApi;
  signer: () => Promise<UrlSigner>;
  validateWebhookUrl: (url: string) => void;
}

export const FileMatchErrors = {
  gzipAvro: () =>
    new DomainError(
      'UNSUPPORTED_INPUT_COMPRESSION',
      'gzip compression is not supported with avro (Avro files carry their own DEFLATE compression).',
      {
        nextStep: 'Send compression "none" with avro, or use csv/json/jsonl with gzip.',
      },
    ),
  notMatched: (subtype: string) =>
    new DomainError('NOT_A_MATCHED_UPLOAD', `This is a ${subtype} segment, not a matched upload.`, {
      nextStep: 'This applies to matched segments created by POST /v1/match/file or POST /v1/segments with subtype matched.',
    }),
};

export function checkCompression(format: string, compression: string | undefined): void {
  if (format === 'avro' && compression === 'gzip') throw FileMatchErrors.gzipAvro();
}

/** Index-ordered signed PUT URLs of one upload version. */
export async function uploadUrls(
  signer: UrlSigner,
  fm: Pick<FileMatchRow, 'org_id' | 'segment_id' | 'upload_version' | 'shard_count'>,
  expiresAt: Date,
) {
  const urls = Array.from({ length: fm.shard_count }, (_, i) =>
    signer.url({ method: 'PUT', path: objectKeys.uploadPath(fm.org_id, fm.segment_id, fm.upload_version, i), expiresAt }),
  );
  return fm.shard_count === 1
    ? { upload_url: urls[0]!, upload_expires_at: expiresAt.toISOString() }
    : { upload_urls: urls, upload_expires_at: expiresAt.toISOString() };
}

export function createFileMatchService(deps: FileMatchDeps) {
  const { db, clock, segments } = deps;

  async function findMatched(viewer: Viewer, id: string): Promise<{ segment: SegmentRow; fm: FileMatchRow }> {
    // One snapshot for both rows: the completion commits them together, and two separate reads on
    // PostgreSQL could show matching_status completed beside a still-pending segment.
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const segment = await segments.findVisibleSegment(viewer, id, { db: trx });
        const fm = await fileMatchStore.find(trx, viewer.orgId, id);
        if (segment.subtype !== 'matched' || !fm) throw FileMatchErrors.notMatched(segment.subtype);
        return { segment, fm };
      });
  }

  async function create(viewer: Viewer, input: CreateMatchedInput): Promise<CreatedSegmentDoc> {
    const format = input.file_format ?? 'csv';
    const compression = input.compression ?? 'none';
    checkCompression(format, compression);
    await segments.checkCampaign(viewer.orgId, input.campaign_id);
    if (input.webhook_url) deps.validateWebhookUrl(input.webhook_url);
    const release = segments.requireRelease();
    const now = clock.now();
    const id = newId('seg');
    const name = input.name ?? `File Match ${now.toISOString()}`;
    const shardCount = input.shard_count ?? 1;
    const visibility = input.visibility ?? 'org';
    const details: MatchedDetails = {
      file_format: format,
      shard_count: shardCount,
      column_mappings: null,
      mapping_confirmed: false,
      hitl: input.hitl ?? false,
      ...(input.session_id ? { session_id: input.session_id } : {}),
    };
    const counting = { record_count: null, record_count_reason: 'counting' as const };
    const audienceId = await db.transaction().execute(async (trx) => {
      await segments.insert(trx, {
        id,
        orgId: viewer.orgId,
        name,
        subtype: 'matched',
        status: 'pending',
        visibility,
        createdBy: viewer.userId,
        count: counting,
        release,
        now,
        expiresAt: persistentExpiry(now),
        details,
        originCampaignId: input.campaign_id ?? null,
        webhookUrl: input.webhook_url ?? null,
      });
      // The wrapper is pending until its matched segment resolves (ARCHITECTURE: audiences carry pending/failed).
      const wrapper =
        (input.create_audience ?? true)
          ? await segments.insertWrapperAudience(trx, {
              orgId: viewer.orgId,
              segmentId: id,
              name,
              visibility,
              createdBy: viewer.userId,
              status: 'pending',
              count: counting,
              release,
              campaignId: input.campaign_id ?? null,
              now,
            })
          : null;
      await fileMatchStore.insert(trx, {
        segment_id: id,
        org_id: viewer.orgId,
        audience_id: wrapper,
        upload_version: 1,
        file_format: format,
        compression,
        shard_count: shardCount,
        hitl: details.hitl,
        match_levels: JSON.stringify(input.match_level?.length ? [...new Set(input.match_level)] : ['I', 'H', 'D', 'S', 'A']),
        spatial_mode: input.spatial_mode ?? 'residential',
        matching_status: 'awaiting_upload',
        created_at: now,
        updated_at: now,
      });
      return wrapper;
    });
    const fm = (await fileMatchStore.find(db, viewer.orgId, id))!;
    const segment = (await segments.findSegment(db, viewer.orgId, id))!;
    return {
      ...segments.presentSegment(segment),
      ...(audienceId ? { audience_id: audienceId } : {}),
      match_id: id,
      ...(await uploadUrls(await deps.signer(), fm, new Date(now.getTime() + CREATE_URL_TTL))),
    };
  }

  return {
    findMatched,
    create,

    /** An Idempotency-Key replay of POST /v1/match/file: the same segment as it is now, with re-signed URLs. */
    async refreshUploadUrls(orgId: string, stored: CreatedSegmentDoc): Promise<CreatedSegmentDoc> {
      const fm = await fileMatchStore.find(db, orgId, stored.segment_id);
      const segment = await segments.findSegment(db, orgId, stored.segment_id);
      if (!fm || !segment) return stored;
      const { upload_url: _u, upload_urls: _us, ...rest } = stored;
      return {
        ...rest,
        ...segments.presentSegment(segment),
        ...(await uploadUrls(await deps.signer(), fm, new Date(clock.now().getTime() + CREATE_URL_TTL))),
      };
    },

    /** Matched refresh (spec 3): new upload version, 24-hour URLs; hitl leaves the segment as it is until confirmed. */
    async refresh(viewer: Viewer, segment: SegmentRow, input: RefreshSegmentInput): Promise<RefreshedSegmentDoc> {
      if (input.force !== undefined)
        throw new DomainError('INVALID_REQUEST', 'force applies to filter segments only.', { nextStep: 'Remove force.' });
      const fm = await fileMatchStore.find(db, viewer.orgId, segment.id);
      if (!fm) throw FileMatchErrors.notMatched(segment.subtype);
      const compression = input.compression ?? 'none'; // never inherited from the previous upload
      checkCompression(fm.file_format, compression);
      const hitl = input.hitl ?? false;
      const shardCount = input.shard_count ?? 1;
      const now = clock.now();
      const version = fm.upload_version + 1;
      const affected = (await segments.segmentUsage(viewer.orgId, segment.id)).map((u) => u.id);
      await db.transaction().execute(async (trx) => {
        await fileMatchStore.update(trx, viewer.orgId, segment.id, {
          upload_version: version,
          compression,
          shard_count: shardCount,
          hitl,
          matching_status: 'awaiting_upload',
          rows_read: 0,
          rows_matched: 0,
          analysis: null,
          mapping_warnings: null,
          error_code: null,
          run_id: null,
          updated_at: now,
        });
        if (hitl) return; // staged: the segment is untouched until POST .../mappings confirms
        const details: MatchedDetails = {
          ...matchedDetails(segment.details),
          shard_count: shardCount,
          column_mappings: null,
          mapping_confirmed: false,
          hitl,
        };
        await segments.markPending(trx, viewer.orgId, segment.id, { details, newVersion: segment.current_version + 1, now });
      });
      const after = (await fileMatchStore.find(db, viewer.orgId, segment.id))!;
      return {
        ...segments.presentSegment((await segments.findSegment(db, viewer.orgId, segment.id))!),
        refreshed: true,
        affected_audiences: affected,
        next_step: hitl
          ? 'Upload to the URL(s), analyze (POST /v1/match/{id}/analyze), then confirm with POST /v1/segments/{id}/mappings or abort with .../mappings/cancel.'
          : `Upload the new file to the URL(s) within 24 hours; resolution starts when every shard is uploaded. ${affectedNextStep(affected)}`,
        ...(await uploadUrls(await deps.signer(), after, new Date(now.getTime() + REFRESH_URL_TTL))),
      };
    },

    /** GET /v1/match/file/{match_id}. */
    async status(viewer: Viewer, id: string): Promise<MatchStatusDoc> {
      const { segment, fm } = await findMatched(viewer, id);
      const shards = await fileMatchStore.shards(db, id, fm.upload_version);
      const details = matchedDetails(segment.details);
      return {
        match_id: id,
        segment_id: id,
        audience_id: fm.audience_id,
        name: segment.name,
        status: segment.status,
        matching_status: fm.matching_status as MatchStatusDoc['matching_status'],
        mapping_warnings: (fm.mapping_warnings as MatchStatusDoc['mapping_warnings'] | null) ?? [],
        progress: { shards_uploaded: shards.length, shard_count: fm.shard_count, rows_read: fm.rows_read, rows_matched: fm.rows_matched },
        file_format: fm.file_format,
        compression: fm.compression,
        hitl: fm.hitl,
        input_record_count: segment.input_record_count,
        match_count: segment.match_count,
        match_rate:
          segment.match_count !== null && segment.input_record_count
            ? Math.round((segment.match_count / segment.input_record_count) * 1e4) / 1e4
            : null,
        column_mappings: details.column_mappings,
        mapping_confirmed: details.mapping_confirmed,
        error_code: fm.matching_status === 'failed' ? fm.error_code : null,
        error_message: segment.status === 'failed' ? segment.error_message : null,
        created_at: fm.created_at.toISOString(),
        updated_at: fm.updated_at.toISOString(),
      };
    },

    /**
     * POST /v1/segments/{id}/upload-failed: pending -> failed (and the wrapper audience); a repeat is a
     * no-op. A given audience_id must be an audience of this segment visible to the caller.
     */
    async uploadFailed(viewer: Viewer, id: string, input: { audience_id?: string; reason?: string }) {
      const segment = await segments.findVisibleSegment(viewer, id);
      if (segment.subtype !== 'matched') throw FileMatchErrors.notMatched(segment.subtype);
      if (input.audience_id !== undefined) {
        await segments.findVisibleAudience(viewer, input.audience_id);
        const refs = (await segments.audienceRefs(db, viewer.orgId, [input.audience_id])).get(input.audience_id) ?? [];
        if (!refs.some((r) => r.segment_id === id)) {
          throw new DomainError('SEGMENT_NOT_A_MEMBER', `Audience ${input.audience_id} does not include segment ${id}.`, {
            nextStep: 'Send the audience that wraps this upload (its audience_id), or omit audience_id.',
          });
        }
      }
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        const locked = (await segments.findSegment(trx, viewer.orgId, id, { forUpdate: true }))!;
        if (locked.status !== 'pending') return { ok: true, already_resolved: true };
        const fm = await fileMatchStore.find(trx, viewer.orgId, id);
        const message = `Upload failed: ${input.reason ?? 'reported by the client'}`.slice(0, 600);
        await fileMatchStore.update(trx, viewer.orgId, id, { matching_status: 'failed', error_code: 'UPLOAD_FAILED', updated_at: now });
        await segments.markFailed(trx, viewer.orgId, id, {
          message,
          audienceIds: [input.audience_id, fm?.audience_id].filter((a): a is string => !!a),
          now,
        });
        return { ok: true, already_resolved: false };
      });
    },
  };
}

export type FileMatchService = ReturnType<typeof createFileMatchService>;
