/**
 * The resolution job (spec 3 "pending (matched)"): stream every shard, map columns, normalize and
 * stage each row on disk as it is read, match the whole file in one set-based statement (the
 * matcher's matchStaged), write per-row results and the member set as Parquet under a run id, then
 * swap them in and activate the segment in one transaction with segment.ready. A worker killed
 * mid-run leaves only an orphan run folder: the retried job starts a new run and the old one is never
 * referenced. A problem in the file itself fails the segment (segment.failed) without retries.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { UploadSettings } from '../../config/uploads.ts';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/ids.ts';
import {
  createMatcher,
  createStagePool,
  createStageWriter,
  defaultStageThreads,
  type MatchLevel,
  type StagedLines,
  type MatchWarehouse,
  type SpatialMode,
} from '../../identity/matcher/index.ts';
import { iagPersonIdOf } from '../../identity/normalize/index.ts';
import { decodeIssuedPersonId } from '../../identity/person-id.ts';
import type { ObjectStore } from '../../objects/store.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { analyzeColumns, mappingUsable } from './analysis.ts';
import { FileDataError, sampleShard, shardReader, type Compression, type FileFormat } from './upload-formats/read.ts';
import { compileMapping } from './records.ts';
import { createResultsWriter, finalizeResults } from './results.ts';
import { fileMatchStore, objectKeys, type FileMatchRow } from './store.ts';
import { completeMatch, failMatch } from './transitions.ts';
import { RESOLVE_JOB, RESOLVE_QUEUE, type ResolveJobData } from './upload.ts';

/** Rows read between progress updates of the read pass (rows_read). */
export const PROGRESS_ROWS = 50_000;
/**
 * Rows per batch handed to the staging pool, and batches queued ahead of the one being appended. Small batches keep
 * a worker's live objects (a batch's records, normalized rows and lines) within its young generation, so fewer
 * survive into the old one: the read pass of the 1M-row mixed file took 9.15-9.39 s with 500-row batches against
 * 9.93-10.43 s with 2,000 (docs/benchmarks.md); the same 8,000 rows are in flight.
 */
const STAGE_BATCH = 500;
const STAGE_AHEAD = 16;
/** Least time between progress updates of the match pass (rows_matched). */
const PROGRESS_MS = 1000;
export const SAMPLE_ROWS = 1000;

export interface ResolverDeps {
  db: Kysely<DB>;
  clock: Clock;
  objects: ObjectStore;
  warehouse: MatchWarehouse;
  index: { current(): Promise<{ indexPath: string }> };
  events: Pick<EventService, 'emit'>;
  segments: SegmentsApi;
  /** Decodes a tier-01 iag_person_id of the organization to its graph person key (null if not usable for direct refresh). */
  personIdDecoder: (orgId: string) => Promise<(id: string) => bigint | null>;
  /** What a shard may expand to and its longest line (UPLOAD_MAX_UNCOMPRESSED_BYTES, UPLOAD_MAX_LINE_BYTES). */
  uploadLimits: UploadSettings;
  /** File matches a worker process resolves at once (FILE_MATCH_CONCURRENCY; default 1). */
  concurrency?: number;
  /** Staging worker threads (default defaultStageThreads(); 0: normalize on the main thread). */
  stageThreads?: number;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Test hook: called before the results are swapped in (a crash there must be retried cleanly). */
  beforeSwap?: (data: ResolveJobData) => void | Promise<void>;
}

export function personIdDecoder(deps: { secret: () => Promise<string>; clientCode: (orgId: string) => Promise<string | undefined> }) {
  return async (orgId: string) => {
    const [secret, code] = await Promise.all([deps.secret(), deps.clientCode(orgId)]);
    // Only an id issued by an I match refreshes (decision 051); one issued at H, D, S or A matches on the row's other fields.
    return (id: string) => {
      const issued = code ? decodeIssuedPersonId(id, { orgId, secret, orgClientCode: code }) : null;
      return issued?.level === 'I' ? issued.personKey : null;
    };
  };
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());

/** Every CSV shard repeats shard 0's header row (spec 4.5); other formats carry no header. */
function checkShardHeader(fm: FileMatchRow, got: string[] | null, want: string[], shard: number) {
  if (fm.file_format !== 'csv') return;
  const h = got ?? [];
  if (h.join('\u0000') !== want.join('\u0000')) {
    throw new FileDataError(
      'SHARD_HEADER_MISMATCH',
      `Shard ${shard} header (${h.join(', ')}) differs from shard 0 (${want.join(', ')}); every shard must have the same header row.`,
    );
  }
}

export function createResolver(deps: ResolverDeps) {
  const { db, clock } = deps;
  const matcher = createMatcher({ warehouse: deps.warehouse, indexPath: async () => (await deps.index.current()).indexPath });

  async function mappingsFor(fm: FileMatchRow, files: string[], details: Record<string, unknown>) {
    const sample = await sampleShard(
      files[0]!,
      fm.file_format as FileFormat,
      fm.compression as Compression,
      SAMPLE_ROWS,
      deps.uploadLimits,
    );
    const analysis = analyzeColumns(sample.header, sample.rows);
    const confirmed =
      details.mapping_confirmed === true && details.column_mappings ? (details.column_mappings as Record<string, string>) : null;
    const mappings = confirmed ?? analysis.column_mappings;
    if (confirmed ? !mappingUsable(confirmed) : !analysis.usable) {
      throw new FileDataError(
        'NO_USABLE_IDENTITY_COLUMN',
        `No usable identity column in the file (columns: ${sample.header.slice(0, 20).join(', ')}). Include email, phone, a name with an address, or their SHA-256 hashes.`,
      );
    }
    return { analysis, mappings, header: sample.header, confirmed: !!confirmed };
  }

  async function run(data: ResolveJobData, fm: FileMatchRow, runId: string) {
    const shards = await fileMatchStore.shards(db, data.segmentId, data.uploadVersion);
    if (shards.length !== fm.shard_count)
      throw new FileDataError('MISSING_SHARDS', `Only ${shards.length} of ${fm.shard_count} shards were uploaded.`);
    const files = shards.map((s) => deps.objects.pathOf(s.object_key));
    const segment = await deps.segments.findSegment(db, data.orgId, data.segmentId);
    if (!segment) throw new FileDataError('SEGMENT_DELETED', 'The segment was deleted before its upload was matched.');
    const details = (segment.details ?? {}) as Record<string, unknown>;
    const { analysis, mappings, header, confirmed } = await mappingsFor(fm, files, details);
    await fileMatchStore.update(db, data.orgId, data.segmentId, {
      analysis: JSON.stringify(analysis),
      mapping_warnings: JSON.stringify(analysis.mapping_warnings),
    });
    const { rowIdColumn, toRecord } = compileMapping(mappings);
    const decode = await deps.personIdDecoder(data.orgId);
    await deps.index.current(); // resolves (and builds if needed) the index of the current release first
    const options = { matchLevels: fm.match_levels as MatchLevel[], spatialMode: fm.spatial_mode as SpatialMode };
    const dir = deps.objects.pathOf(objectKeys.run(data.orgId, data.segmentId, data.uploadVersion, runId));
    const progress = (set: { rows_read?: number; rows_matched?: number }) =>
      db
        .updateTable('file_matches')
        .set({ ...set, updated_at: clock.now() })
        .where('segment_id', '=', data.segmentId)
        .where('run_id', '=', runId)
        .execute();
    const results = createResultsWriter(dir);
    const stage = createStageWriter(path.join(dir, 'stage'), { removeDir: true });
    const pool = createStagePool(deps.stageThreads ?? defaultStageThreads());
    const today = clock.now();
    let read = 0;
    let batch: Record<string, unknown>[] = [];
    let direct: (bigint | null)[] = [];
    const inflight: Promise<StagedLines>[] = [];
    const send = async () => {
      if (batch.length) inflight.push(pool.stage(batch, read - batch.length, direct, today));
      batch = [];
      direct = [];
      // Bounded: replies are appended in batch order as they come, a few batches per thread ahead.
      while (inflight.length > STAGE_AHEAD) stage.addLines(await inflight.shift()!);
    };

    // Pass 1, streaming: the main thread parses and maps rows; the staging pool normalizes them and
    // formats their staged lines (stage-pool.ts); nothing of a row stays in memory but its spatial ZIP.
    try {
      for (let s = 0; s < files.length; s++) {
        const reader = shardReader(files[s]!, fm.file_format as FileFormat, fm.compression as Compression, s, deps.uploadLimits);
        let first = true;
        for await (const row of reader.rows()) {
          if (first) checkShardHeader(fm, reader.header(), header, s);
          first = false;
          let rowId = `row_${read}`;
          if (rowIdColumn) {
            rowId = text(row[rowIdColumn]);
            if (!rowId)
              throw new FileDataError(
                'INVALID_ROW_ID',
                `Row ${read + 1} (shard ${s}) has an empty row_id; every row_id needs a non-whitespace character.`,
              );
          }
          const record = toRecord(row);
          const pid = iagPersonIdOf(record);
          batch.push(record);
          direct.push(pid ? decode(pid) : null);
          results.rowId(read, rowId);
          if (++read % STAGE_BATCH === 0) await send();
          if (read % PROGRESS_ROWS === 0) await progress({ rows_read: read });
        }
        if (first) checkShardHeader(fm, reader.header(), header, s);
      }
      await send();
      for (const lines of await Promise.all(inflight.splice(0))) stage.addLines(lines);
    } catch (error) {
      // The run folder is removed by the caller; its files must be closed first.
      stage.discard();
      results.close();
      throw error;
    } finally {
      await Promise.allSettled(inflight);
      await pool.close();
    }
    if (read === 0) throw new FileDataError('EMPTY_FILE', 'The uploaded file has no data rows.');
    await progress({ rows_read: read });

    // Pass 2, set-based: one candidate statement over the whole staged file (matchStaged).
    const staged = stage.close();
    let matched = 0;
    let reported = Date.now();
    try {
      // A promise only when a progress write is due: the matcher awaits nothing for the other rows.
      await matcher.matchStaged(staged, options, (d) => {
        results.decision(d);
        matched++;
        if (Date.now() - reported < PROGRESS_MS) return undefined;
        reported = Date.now();
        return progress({ rows_matched: matched }).then(() => undefined);
      });
    } finally {
      staged.cleanup();
    }
    const out = await finalizeResults(deps.warehouse, dir, results.close());
    if (out.duplicates.length) {
      throw new FileDataError('DUPLICATE_ROW_ID', `row_id values must be unique across shards; duplicated: ${out.duplicates.join(', ')}.`);
    }
    await progress({ rows_matched: out.matchCount });
    await deps.beforeSwap?.(data);
    return { ...out, analysis, mappings, confirmed };
  }

  const definition: JobDefinition<ResolveJobData> = {
    name: RESOLVE_JOB,
    queue: RESOLVE_QUEUE,
    // includeMetadata: the handler needs retryCount to know its last attempt (then it fails the segment).
    // notifyPollingIntervalSeconds: with LISTEN/NOTIFY on, pg-boss polls only every 30 s, and retries are never notified.
    // localConcurrency: an organization's next match (or another organization's) runs beside a long one.
    work: {
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 2,
      includeMetadata: true,
      localConcurrency: deps.concurrency ?? 1,
    } as JobDefinition['work'],
    async handle(data, job) {
      const fm = await fileMatchStore.find(db, data.orgId, data.segmentId);
      // Stale (refreshed since) or already settled: nothing to do, so a duplicate delivery is harmless.
      if (!fm || fm.upload_version !== data.uploadVersion || !['queued', 'matching'].includes(fm.matching_status)) return { skipped: true };
      // Deleted meanwhile: end the job for good (a retry could never succeed), with the reason logged.
      if (!(await deps.segments.findSegment(db, data.orgId, data.segmentId))) {
        await fileMatchStore.update(db, data.orgId, data.segmentId, {
          matching_status: 'failed',
          error_code: 'SEGMENT_DELETED',
          updated_at: clock.now(),
        });
        deps.log?.warn({ org_id: data.orgId, segment_id: data.segmentId }, 'file match ended: its segment was deleted');
        return { skipped: true, reason: 'segment_deleted' };
      }
      // A run that was still `matching` when this attempt began died with its worker (kill -9, a lost
      // host): its heartbeat stopped and the job came back here. Its staged rows (normalized personal
      // data) and partial results are removed before anything else.
      if (fm.matching_status === 'matching' && fm.run_id) {
        fs.rmSync(deps.objects.pathOf(objectKeys.run(data.orgId, data.segmentId, data.uploadVersion, fm.run_id)), {
          recursive: true,
          force: true,
        });
        deps.log?.warn(
          { org_id: data.orgId, segment_id: data.segmentId, dead_run_id: fm.run_id, attempt: job.retryCount },
          'file match resumed after its previous run died; its staging was removed',
        );
      }
      const runId = randomBase62(10);
      const ids = { org_id: data.orgId, segment_id: data.segmentId, upload_version: data.uploadVersion, run_id: runId };
      const started = Date.now();
      deps.log?.info(ids, 'file match started');
      await fileMatchStore.update(db, data.orgId, data.segmentId, {
        matching_status: 'matching',
        run_id: runId,
        rows_read: 0,
        rows_matched: 0,
        updated_at: clock.now(),
      });
      const runDir = deps.objects.pathOf(objectKeys.run(data.orgId, data.segmentId, data.uploadVersion, runId));
      try {
        const out = await run(data, fm, runId);
        const swapped = await completeMatch({ db, clock, events: deps.events, segments: deps.segments }, data, runId, {
          rowsPath: out.rowsPath,
          membersPath: out.membersPath,
          inputCount: out.inputCount,
          matchCount: out.matchCount,
          memberCount: out.memberCount,
          mappings: out.mappings,
          confirmed: out.confirmed,
          warnings: out.analysis.mapping_warnings,
        });
        if (!swapped) fs.rmSync(runDir, { recursive: true, force: true });
        deps.log?.info(
          { ...ids, rows: out.inputCount, matched: out.matchCount, ms: Date.now() - started, swapped },
          'file match completed',
        );
        return { swapped, rows: out.inputCount, matched: out.matchCount };
      } catch (error) {
        fs.rmSync(runDir, { recursive: true, force: true });
        const final = error instanceof FileDataError || job.retryCount >= (RESOLVE_QUEUE.retryLimit ?? 0);
        deps.log?.warn(
          {
            ...ids,
            ms: Date.now() - started,
            code: error instanceof FileDataError ? error.code : 'RESOLUTION_FAILED',
            final,
            err: (error as Error).message,
          },
          final ? 'file match failed' : 'file match run failed; it will be retried',
        );
        if (!final) throw error; // pg-boss retries with a new run
        const code = error instanceof FileDataError ? error.code : 'RESOLUTION_FAILED';
        const message =
          error instanceof FileDataError
            ? error.message
            : 'Resolution failed after retries; upload again with POST /v1/segments/{id}/refresh.';
        await failMatch({ db, clock, events: deps.events, segments: deps.segments }, data, code, message);
        return { failed: code };
      }
    },
  };
  return { definition };
}
