/**
 * Analysis and human-in-the-loop mappings (spec 4.3, 4.4, 4.5): analyze the uploaded (or staged)
 * shard 0; confirm column mappings, which for a staged upload moves the files into place and starts
 * resolution (500 STAGING_COPY_FAILED leaves everything unchanged, retryable); cancel a staged upload.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ObjectStore } from '../../objects/store.ts';
import { SegmentErrors, type SegmentsApi } from '../segments/index.ts';
import { analyzeColumns, SKIP, STANDARD_ATTRIBUTES } from './analysis.ts';
import { matchedDetails } from './details.ts';
import type { UploadSettings } from '../../config/uploads.ts';
import { FileDataError, sampleShard, type Compression, type FileFormat } from './upload-formats/read.ts';
import { SAMPLE_ROWS } from './resolve.ts';
import type { FileMatchService } from './service.ts';
import { fileMatchStore, objectKeys } from './store.ts';
import { enqueueResolution, RESOLVE_JOB, RESOLVE_QUEUE } from './upload.ts';

const ALLOWED = new Set<string>([...STANDARD_ATTRIBUTES, SKIP]);
const STAGED = 'awaiting_mappings';

export function createMappingService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  queue: JobQueue;
  objects: ObjectStore;
  files: FileMatchService;
  segments: SegmentsApi;
  uploadLimits: UploadSettings;
}) {
  const { db, clock, segments } = deps;

  async function analyze(viewer: Viewer, id: string) {
    const analysis = await analyzeRaw(viewer, id);
    return {
      segment_id: id,
      analysis: { columns: analysis.columns, unmapped_columns: analysis.unmapped_columns, recommendations: analysis.recommendations },
    };
  }

  async function analyzeRaw(viewer: Viewer, id: string) {
    const { segment, fm } = await deps.files.findMatched(viewer, id);
    const shard0 = (await fileMatchStore.shards(db, id, fm.upload_version)).find((s) => s.shard_index === 0);
    // A cancelled staged upload is gone: analysis waits for a new upload (never a server path in an answer).
    if (!shard0 || fm.matching_status === 'cancelled' || !deps.objects.exists(shard0.object_key)) {
      throw new DomainError('FILE_NOT_YET_UPLOADED', 'Nothing was uploaded for this segment yet (shard 0 is missing).', {
        nextStep:
          fm.matching_status === 'cancelled'
            ? 'The staged upload was cancelled: refresh the segment (POST /v1/segments/{id}/refresh) for new upload URLs, upload, then analyze.'
            : 'PUT the file to the upload_url first, then analyze.',
      });
    }
    const sample = await sampleShard(
      deps.objects.pathOf(shard0.object_key),
      fm.file_format as FileFormat,
      fm.compression as Compression,
      SAMPLE_ROWS,
      deps.uploadLimits,
    ).catch((e: Error) => {
      // A read limit has a code of its own; its message names the limit and the setting.
      if (e instanceof FileDataError && (e.code === 'FILE_TOO_LARGE_UNCOMPRESSED' || e.code === 'LINE_TOO_LONG'))
        throw new DomainError(e.code, e.message);
      throw new DomainError(
        'INVALID_FILE',
        `The uploaded file could not be read as ${fm.file_format}${fm.compression === 'gzip' ? ' (gzip)' : ''}: ${clientSafe(e)}`,
        {
          nextStep:
            'Check file_format and compression; refresh the segment (POST /v1/segments/{id}/refresh) for new upload URLs and upload again.',
        },
      );
    });
    const analysis = analyzeColumns(sample.header, sample.rows);
    const details = matchedDetails(segment.details);
    await db.transaction().execute(async (trx) => {
      await fileMatchStore.update(trx, viewer.orgId, id, {
        analysis: JSON.stringify(analysis),
        mapping_warnings: JSON.stringify(analysis.mapping_warnings),
        updated_at: clock.now(),
      });
      // "filled after analysis" (spec 2), unless the customer already confirmed their own.
      if (!details.mapping_confirmed)
        await segments.setDetails(trx, viewer.orgId, id, { ...details, column_mappings: analysis.column_mappings });
    });
    return analysis;
  }

  async function confirm(viewer: Viewer, id: string, given: Record<string, string>) {
    const bad = Object.entries(given).filter(([, v]) => !ALLOWED.has(v));
    if (bad.length) {
      throw new DomainError('INVALID_COLUMN_MAPPING', `Unknown standard attribute(s): ${bad.map(([k, v]) => `${k} -> ${v}`).join(', ')}.`, {
        details: { allowed: [...ALLOWED] },
        nextStep: 'Map each column to a standard attribute or "(skip)".',
      });
    }
    const { segment, fm } = await deps.files.findMatched(viewer, id);
    const staged = fm.hitl && fm.matching_status === STAGED;
    const now = clock.now();
    const shards = staged ? await fileMatchStore.shards(db, id, fm.upload_version) : [];
    const moved = shards.map((s) => ({ ...s, final: objectKeys.shard(viewer.orgId, id, fm.upload_version, s.shard_index, 'final') }));
    if (staged) {
      try {
        for (const s of moved) deps.objects.copy(s.object_key, s.final);
      } catch (cause) {
        throw new DomainError('STAGING_COPY_FAILED', 'The staged upload could not be moved into place; nothing changed.', {
          cause,
          nextStep: 'Retry POST .../mappings.',
        });
      }
      await deps.queue.ensureQueue(RESOLVE_JOB, RESOLVE_QUEUE);
    }
    // Columns the customer did not name keep their analyzed mapping (analysis runs now if it never did).
    let auto = (fm.analysis as { column_mappings?: Record<string, string> } | null)?.column_mappings;
    if (!auto && (await fileMatchStore.shards(db, id, fm.upload_version)).length) auto = (await analyzeRaw(viewer, id)).column_mappings;
    const mappings = { ...(auto ?? {}), ...given };
    await db.transaction().execute(async (trx) => {
      const details = { ...matchedDetails(segment.details), column_mappings: mappings, mapping_confirmed: true };
      if (!staged) {
        await segments.setDetails(trx, viewer.orgId, id, details, now);
        return;
      }
      for (const s of moved) {
        await fileMatchStore.recordShard(trx, {
          segmentId: id,
          uploadVersion: fm.upload_version,
          shardIndex: s.shard_index,
          objectKey: s.final,
          bytes: Number(s.bytes),
          at: now,
        });
      }
      await fileMatchStore.update(trx, viewer.orgId, id, { matching_status: 'queued', updated_at: now });
      await segments.markPending(trx, viewer.orgId, id, { details: { ...details, shard_count: fm.shard_count, hitl: true }, now });
      await enqueueResolution(deps.queue, trx, { orgId: viewer.orgId, segmentId: id, uploadVersion: fm.upload_version });
    });
    if (staged) {
      deps.queue.wake(RESOLVE_JOB);
      deps.objects.remove(`${objectKeys.uploadRoot(viewer.orgId, id, fm.upload_version)}/staging`);
    }
    return { ok: true, segment_id: id, column_mappings: mappings, mapping_confirmed: true, resolution_started: staged };
  }

  async function cancel(viewer: Viewer, id: string) {
    const { fm } = await deps.files.findMatched(viewer, id);
    if (!fm.hitl || !['awaiting_upload', STAGED].includes(fm.matching_status)) {
      throw new DomainError('NO_STAGED_UPLOAD', `There is no staged upload to cancel (matching is ${fm.matching_status}).`, {
        nextStep: 'Cancel applies to a hitl upload waiting for mappings.',
      });
    }
    await fileMatchStore.update(db, viewer.orgId, id, { matching_status: 'cancelled', updated_at: clock.now() });
    deps.objects.remove(`${objectKeys.uploadRoot(viewer.orgId, id, fm.upload_version)}/staging`);
    return { ok: true, segment_id: id, cancelled: true };
  }

  /** The audience routes act on the audience's included matched segment. */
  async function matchedSegmentOf(viewer: Viewer, audienceId: string): Promise<string> {
    const matched = await segments.includedSegmentOf(viewer, audienceId, 'matched');
    if (!matched) throw SegmentErrors.notFound();
    return matched.id;
  }

  return {
    analyze,
    confirm,
    cancel,
    async confirmForAudience(viewer: Viewer, audienceId: string, given: Record<string, string>) {
      const r = await confirm(viewer, await matchedSegmentOf(viewer, audienceId), given);
      return { ...r, audience_id: audienceId };
    },
    async cancelForAudience(viewer: Viewer, audienceId: string) {
      return { ...(await cancel(viewer, await matchedSegmentOf(viewer, audienceId))), audience_id: audienceId };
    },
  };
}

export type MappingService = ReturnType<typeof createMappingService>;

/** A reader's message without server paths (they never reach a client). */
function clientSafe(e: Error): string {
  return e.message.replace(/(?:\/[\w.@-]+){2,}/g, '<file>').slice(0, 300);
}
