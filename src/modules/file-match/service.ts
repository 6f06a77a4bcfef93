/**
 * File matching (spec 4.5, 3): create a pending matched segment with signed upload URLs, refresh it,
 * report progress, and mark an upload failed. Uploads: upload.ts; analysis and mappings: mappings.ts;
 * resolution: resolve.ts.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import type { IdempotencyService } from '../../http/idempotency/service.ts';
import { MINUTE, HOUR, type Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { UrlSigner } from '../../objects/signed-urls.ts';
import { audienceRow } from '../audiences/rows.ts';
import { audienceStore } from '../audiences/store.ts';
import { campaignStore } from '../campaigns/store.ts';
import { SegmentErrors, persistentExpiry, visibleTo } from '../segments/common.ts';
import type { ReleaseRef } from '../segments/ports.ts';
import { presentSegment } from '../segments/present.ts';
import { segmentStore, type SegmentRow, type Viewer } from '../segments/store.ts';
import { fileMatchStore, objectKeys, type FileMatchRow } from './store.ts';

export const CREATE_URL_TTL = 30 * MINUTE;
export const REFRESH_URL_TTL = 24 * HOUR;
export const MATCH_FILE_ENDPOINT = 'POST /v1/match/file';

export interface CreateMatchedInput {
  name?: string;
  file_format?: 'csv' | 'avro' | 'json' | 'jsonl';
  compression?: 'none' | 'gzip';
  create_audience?: boolean;
  campaign_id?: string;
  webhook_url?: string;
  hitl?: boolean;
  match_level?: string[];
  spatial_mode?: string;
  shard_count?: number;
  visibility?: 'org' | 'private';
}

export interface RefreshMatchedInput {
  hitl?: boolean;
  shard_count?: number;
  compression?: string;
}

export interface FileMatchDeps {
  db: Kysely<DB>;
  clock: Clock;
  signer: () => Promise<UrlSigner>;
  idempotency: IdempotencyService;
  currentRelease: () => ReleaseRef | null;
  validateWebhookUrl: (url: string) => void;
}

export const FileMatchErrors = {
  gzipAvro: () => new AppError('UNSUPPORTED_INPUT_COMPRESSION', 400, 'gzip compression is not supported with avro (Avro files carry their own DEFLATE compression).', {
    nextStep: 'Send compression "none" with avro, or use csv/json/jsonl with gzip.',
  }),
  notMatched: (subtype: string) => new AppError('NOT_A_MATCHED_UPLOAD', 400, `This is a ${subtype} segment, not a matched upload.`, {
    nextStep: 'upload-failed applies to matched segments created by POST /v1/match/file or POST /v1/segments with subtype matched.',
  }),
};

function checkOptions(input: CreateMatchedInput): void {
  const bad = (field: string, allowed: string) => new AppError('INVALID_REQUEST', 400, `${field} must be ${allowed}.`, { nextStep: 'Correct the field and send the request again.' });
  if (input.file_format !== undefined && !['csv', 'avro', 'json', 'jsonl'].includes(input.file_format)) throw bad('file_format', 'csv, avro, json or jsonl');
  if (input.compression !== undefined && !['none', 'gzip'].includes(input.compression)) throw bad('compression', 'none or gzip');
  if (input.shard_count !== undefined && (!Number.isInteger(input.shard_count) || input.shard_count < 1 || input.shard_count > 50)) throw bad('shard_count', 'an integer from 1 to 50');
  if (input.match_level !== undefined && (!Array.isArray(input.match_level) || input.match_level.some((l) => !['I', 'H', 'D', 'S', 'A'].includes(l)))) throw bad('match_level', 'an array of I, H, D, S, A');
  if (input.spatial_mode !== undefined && !['residential', 'work', 'auto'].includes(input.spatial_mode)) throw bad('spatial_mode', 'residential, work or auto');
  if (input.hitl !== undefined && typeof input.hitl !== 'boolean') throw bad('hitl', 'a boolean');
}

export function checkCompression(format: string, compression: string | undefined): void {
  if (format === 'avro' && compression === 'gzip') throw FileMatchErrors.gzipAvro();
}

/** Index-ordered signed PUT URLs of one upload version. */
export async function uploadUrls(signer: UrlSigner, fm: Pick<FileMatchRow, 'org_id' | 'segment_id' | 'upload_version' | 'shard_count'>, expiresAt: Date) {
  const urls = Array.from({ length: fm.shard_count }, (_, i) =>
    signer.url({ method: 'PUT', path: objectKeys.uploadPath(fm.org_id, fm.segment_id, fm.upload_version, i), expiresAt }));
  return fm.shard_count === 1
    ? { upload_url: urls[0]!, upload_expires_at: expiresAt.toISOString() }
    : { upload_urls: urls, upload_expires_at: expiresAt.toISOString() };
}

export function createFileMatchService(deps: FileMatchDeps) {
  const { db, clock } = deps;

  async function findMatched(viewer: Viewer, id: string): Promise<{ segment: SegmentRow; fm: FileMatchRow }> {
    // One snapshot for both rows: the completion commits them together, and two separate reads on
    // PostgreSQL could show matching_status completed beside a still-pending segment.
    return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
      const segment = await segmentStore.find(trx, viewer.orgId, id);
      if (!segment || !visibleTo(segment, viewer)) throw SegmentErrors.notFound();
      const fm = await fileMatchStore.find(trx, viewer.orgId, id);
      if (segment.subtype !== 'matched' || !fm) throw FileMatchErrors.notMatched(segment.subtype);
      return { segment, fm };
    });
  }

  async function create(viewer: Viewer, input: CreateMatchedInput) {
    checkOptions(input); // POST /v1/segments passes its open body through
    const format = input.file_format ?? 'csv';
    const compression = input.compression ?? 'none';
    checkCompression(format, compression);
    const createAudience = input.create_audience ?? true;
    if (input.campaign_id !== undefined && !(await campaignStore.exists(db, viewer.orgId, input.campaign_id))) throw SegmentErrors.invalidCampaign(input.campaign_id);
    if (input.webhook_url) deps.validateWebhookUrl(input.webhook_url);
    const release = deps.currentRelease();
    if (!release) throw SegmentErrors.noRelease();
    const now = clock.now();
    const id = newId('seg');
    const name = input.name ?? `File Match ${now.toISOString()}`;
    const shardCount = input.shard_count ?? 1;
    const hitl = input.hitl ?? false;
    const audienceId = createAudience ? newId('aud') : null;
    const visibility = input.visibility ?? 'org';
    await db.transaction().execute(async (trx) => {
      await segmentStore.insert(trx, {
        id, org_id: viewer.orgId, name, subtype: 'matched', status: 'pending', visibility, created_by: viewer.userId, ephemeral: false,
        record_count: null, record_count_reason: 'counting', current_version: 1, version_created_at: now, record_limit: null, filter_groups: null,
        details: JSON.stringify({ file_format: format, shard_count: shardCount, column_mappings: null, mapping_confirmed: false, hitl }),
        input_record_count: null, match_count: null, members_path: null, shared_source_segment_id: null, error_message: null,
        workflow_run_id: null, origin_campaign_id: input.campaign_id ?? null, webhook_url: input.webhook_url ?? null,
        release_major: release.major, release_minor: release.minor, parent_segment_id: null, root_segment_id: null, parent_version: null,
        expires_at: persistentExpiry(now), created_at: now, updated_at: now, deleted_at: null,
      });
      if (audienceId) {
        const row = audienceRow({
          id: audienceId, orgId: viewer.orgId, name, visibility, createdBy: viewer.userId, setLogic: 'union',
          count: { record_count: null, record_count_reason: 'counting' }, release, campaignId: input.campaign_id ?? null, now,
        });
        // The wrapper is pending until its matched segment resolves (ARCHITECTURE: audiences carry pending/failed).
        await audienceStore.insert(trx, { ...row, status: 'pending', counted_version: null }, [{ segment_id: id, role: 'include' }]);
      }
      await fileMatchStore.insert(trx, {
        segment_id: id, org_id: viewer.orgId, audience_id: audienceId, upload_version: 1, file_format: format, compression, shard_count: shardCount,
        hitl, match_levels: JSON.stringify(input.match_level?.length ? [...new Set(input.match_level)] : ['I', 'H', 'D', 'S', 'A']),
        spatial_mode: input.spatial_mode ?? 'residential', matching_status: 'awaiting_upload', created_at: now, updated_at: now,
      });
    });
    const fm = (await fileMatchStore.find(db, viewer.orgId, id))!;
    const segment = (await segmentStore.find(db, viewer.orgId, id))!;
    return {
      ...presentSegment(segment), ...(audienceId ? { audience_id: audienceId } : {}), match_id: id,
      ...(await uploadUrls(await deps.signer(), fm, new Date(now.getTime() + CREATE_URL_TTL))),
    };
  }

  return {
    findMatched,
    create,

    /** POST /v1/match/file: same as create; an Idempotency-Key replay returns the same segment with re-signed URLs. */
    async createFromFile(viewer: Viewer, input: CreateMatchedInput, idempotencyKey?: string) {
      const run = async () => ({ statusCode: 201, body: await create(viewer, input) as Record<string, unknown> });
      if (idempotencyKey === undefined) return run();
      return deps.idempotency.run({
        orgId: viewer.orgId, endpoint: MATCH_FILE_ENDPOINT, key: idempotencyKey, body: input, execute: run,
        refresh: async (body) => {
          const fm = await fileMatchStore.find(db, viewer.orgId, String(body.segment_id));
          const segment = await segmentStore.find(db, viewer.orgId, String(body.segment_id));
          if (!fm || !segment) return body;
          const { upload_url: _u, upload_urls: _us, ...rest } = body;
          return { ...rest, ...presentSegment(segment), ...(await uploadUrls(await deps.signer(), fm, new Date(clock.now().getTime() + CREATE_URL_TTL))) };
        },
      });
    },

    /** Matched refresh (spec 3): new upload version, 24-hour URLs; hitl leaves the segment as it is until confirmed. */
    async refresh(viewer: Viewer, segment: SegmentRow, input: RefreshMatchedInput) {
      const fm = await fileMatchStore.find(db, viewer.orgId, segment.id);
      if (!fm) throw FileMatchErrors.notMatched(segment.subtype);
      const compression = input.compression ?? 'none'; // never inherited from the previous upload
      checkCompression(fm.file_format, compression);
      const hitl = input.hitl ?? false;
      const shardCount = input.shard_count ?? 1;
      const now = clock.now();
      const version = fm.upload_version + 1;
      const affected = (await segmentStore.usage(db, viewer.orgId, segment.id)).map((u) => u.id);
      await db.transaction().execute(async (trx) => {
        await fileMatchStore.update(trx, viewer.orgId, segment.id, {
          upload_version: version, compression, shard_count: shardCount, hitl, matching_status: 'awaiting_upload', rows_read: 0, rows_matched: 0,
          analysis: null, mapping_warnings: null, error_code: null, run_id: null, updated_at: now,
        });
        if (hitl) return; // staged: the segment is untouched until POST .../mappings confirms
        const details = { ...(segment.details as object), shard_count: shardCount, column_mappings: null, mapping_confirmed: false, hitl };
        await segmentStore.update(trx, viewer.orgId, segment.id, {
          status: 'pending', record_count: null, record_count_reason: 'counting', input_record_count: null, match_count: null, error_message: null,
          details: JSON.stringify(details), current_version: segment.current_version + 1, version_created_at: now, expires_at: persistentExpiry(now), updated_at: now,
        });
        for (const audienceId of await segmentStore.referencingAudienceIds(trx, viewer.orgId, segment.id)) {
          await audienceStore.update(trx, viewer.orgId, audienceId, {
            status: 'pending', record_count: null, record_count_reason: 'counting', matched_record_count: null,
            ...(audienceId === fm.audience_id ? { match_count: null, input_record_count: null } : {}), updated_at: now,
          });
        }
      });
      const after = (await fileMatchStore.find(db, viewer.orgId, segment.id))!;
      return {
        ...presentSegment((await segmentStore.find(db, viewer.orgId, segment.id))!), refreshed: true, affected_audiences: affected,
        next_step: hitl
          ? 'Upload to the URL(s), analyze (POST /v1/match/{id}/analyze), then confirm with POST /v1/segments/{id}/mappings or abort with .../mappings/cancel.'
          : 'Upload the new file to the URL(s) within 24 hours; resolution starts when every shard is uploaded.',
        ...(await uploadUrls(await deps.signer(), after, new Date(now.getTime() + REFRESH_URL_TTL))),
      };
    },

    /** GET /v1/match/file/{match_id}. */
    async status(viewer: Viewer, id: string) {
      const { segment, fm } = await findMatched(viewer, id);
      const shards = await fileMatchStore.shards(db, id, fm.upload_version);
      const details = (segment.details ?? {}) as Record<string, unknown>;
      return {
        match_id: id, segment_id: id, audience_id: fm.audience_id, name: segment.name, status: segment.status,
        matching_status: fm.matching_status, mapping_warnings: (fm.mapping_warnings as unknown[] | null) ?? [],
        progress: { shards_uploaded: shards.length, shard_count: fm.shard_count, rows_read: fm.rows_read, rows_matched: fm.rows_matched },
        file_format: fm.file_format, compression: fm.compression, hitl: fm.hitl,
        input_record_count: segment.input_record_count, match_count: segment.match_count,
        match_rate: segment.match_count !== null && segment.input_record_count ? Math.round((segment.match_count / segment.input_record_count) * 1e4) / 1e4 : null,
        column_mappings: (details.column_mappings as Record<string, string> | null) ?? null, mapping_confirmed: details.mapping_confirmed === true,
        error_message: segment.status === 'failed' ? segment.error_message : null,
        created_at: fm.created_at.toISOString(), updated_at: fm.updated_at.toISOString(),
      };
    },

    /** POST /v1/segments/{id}/upload-failed: pending -> failed (and the audience); a repeat is a no-op. */
    async uploadFailed(viewer: Viewer, id: string, input: { audience_id?: string; reason?: string }) {
      const segment = await segmentStore.find(db, viewer.orgId, id);
      if (!segment || !visibleTo(segment, viewer)) throw SegmentErrors.notFound();
      if (segment.subtype !== 'matched') throw FileMatchErrors.notMatched(segment.subtype);
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        const locked = (await segmentStore.find(trx, viewer.orgId, id, { forUpdate: true }))!;
        if (locked.status !== 'pending') return { ok: true, already_resolved: true };
        const fm = await fileMatchStore.find(trx, viewer.orgId, id);
        const message = `Upload failed: ${input.reason ?? 'reported by the client'}`.slice(0, 600);
        await segmentStore.update(trx, viewer.orgId, id, { status: 'failed', error_message: message, updated_at: now });
        await fileMatchStore.update(trx, viewer.orgId, id, { matching_status: 'failed', error_code: 'UPLOAD_FAILED', updated_at: now });
        for (const audienceId of new Set([input.audience_id, fm?.audience_id].filter((a): a is string => !!a))) {
          const a = await audienceStore.find(trx, viewer.orgId, audienceId);
          if (a) await audienceStore.update(trx, viewer.orgId, audienceId, { status: 'failed', updated_at: now });
        }
        return { ok: true, already_resolved: false };
      });
    },
  };
}

export type FileMatchService = ReturnType<typeof createFileMatchService>;
