/**
 * The resolution job (spec 3 "pending (matched)"): stream every shard, map columns, normalize and
 * match in large set-based batches, write per-row results and the member set as Parquet under a run
 * id, then swap them in and activate the segment in one transaction with segment.ready. A worker killed
 * mid-run leaves only an orphan run folder: the retried job starts a new run and the old one is never
 * referenced. A problem in the file itself fails the segment (segment.failed) without retries.
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { createMatcher, type MatchLevel, type MatchWarehouse, type SpatialMode } from '../../identity/matcher/index.ts';
import { normalizeMatchInput } from '../../identity/normalize/index.ts';
import { decodeGraphPersonId } from '../../identity/person-id.ts';
import type { ObjectStore } from '../../objects/store.ts';
import type { EventService } from '../webhooks/events.ts';
import { segmentStore } from '../segments/store.ts';
import { analyzeColumns, mappingUsable } from './analysis.ts';
import { FileDataError, sampleShard, shardReader, type Compression, type FileFormat } from './formats/read.ts';
import { compileMapping } from './records.ts';
import { createResultsWriter, finalizeResults } from './results.ts';
import { fileMatchStore, objectKeys, type FileMatchRow } from './store.ts';
import { completeMatch, failMatch } from './transitions.ts';
import { RESOLVE_JOB, RESOLVE_QUEUE, type ResolveJobData } from './upload.ts';

/**
 * Rows matched per statement. The file path hash-joins a batch's keys against the whole m_key table
 * (66M keys at 10M persons), so each batch pays one full probe scan: 25,000-row batches spent 9.9 s
 * matching 200k rows, 100,000-row batches 4.6 s (200,000: 4.1 s, but 0.6 GiB more RSS at 1M rows).
 */
export const BATCH_ROWS = 100_000;
export const SAMPLE_ROWS = 1000;

export interface ResolverDeps {
  db: Kysely<DB>;
  clock: Clock;
  objects: ObjectStore;
  warehouse: MatchWarehouse;
  index: { current(): Promise<{ indexPath: string }> };
  events: Pick<EventService, 'emit'>;
  /** Decodes a tier-01 iag_person_id of the organization to its graph person key (null if not usable). */
  personIdDecoder: (orgId: string) => Promise<(id: string) => bigint | null>;
  /** Test hook: called before the results are swapped in (a crash there must be retried cleanly). */
  beforeSwap?: (data: ResolveJobData) => void | Promise<void>;
  /** Test hook: rows per match batch instead of BATCH_ROWS (undefined: BATCH_ROWS). */
  batchRows?: () => number | undefined;
}

export function personIdDecoder(deps: { secret: () => Promise<string>; clientCode: (orgId: string) => Promise<string | undefined> }) {
  return async (orgId: string) => {
    const [secret, code] = await Promise.all([deps.secret(), deps.clientCode(orgId)]);
    return (id: string) => (code ? decodeGraphPersonId(id, { orgId, secret, orgClientCode: code }) : null);
  };
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());

export function createResolver(deps: ResolverDeps) {
  const { db, clock } = deps;
  const matcher = createMatcher({ warehouse: deps.warehouse, indexPath: async () => (await deps.index.current()).indexPath });

  async function mappingsFor(fm: FileMatchRow, files: string[], details: Record<string, unknown>) {
    const sample = await sampleShard(files[0]!, fm.file_format as FileFormat, fm.compression as Compression, SAMPLE_ROWS);
    const analysis = analyzeColumns(sample.header, sample.rows);
    const confirmed = details.mapping_confirmed === true && details.column_mappings ? (details.column_mappings as Record<string, string>) : null;
    const mappings = confirmed ?? analysis.column_mappings;
    if (confirmed ? !mappingUsable(confirmed) : !analysis.usable) {
      throw new FileDataError('NO_USABLE_IDENTITY_COLUMN', `No usable identity column in the file (columns: ${sample.header.slice(0, 20).join(', ')}). Include email, phone, a name with an address, or their SHA-256 hashes.`);
    }
    return { analysis, mappings, header: sample.header, confirmed: !!confirmed };
  }

  async function run(data: ResolveJobData, fm: FileMatchRow, runId: string) {
    const shards = await fileMatchStore.shards(db, data.segmentId, data.uploadVersion);
    if (shards.length !== fm.shard_count) throw new FileDataError('MISSING_SHARDS', `Only ${shards.length} of ${fm.shard_count} shards were uploaded.`);
    const files = shards.map((s) => deps.objects.pathOf(s.object_key));
    const segment = (await segmentStore.find(db, data.orgId, data.segmentId))!;
    const details = (segment.details ?? {}) as Record<string, unknown>;
    const { analysis, mappings, header, confirmed } = await mappingsFor(fm, files, details);
    await fileMatchStore.update(db, data.orgId, data.segmentId, { analysis: JSON.stringify(analysis), mapping_warnings: JSON.stringify(analysis.mapping_warnings) });
    const { rowIdColumn, toRecord } = compileMapping(mappings);
    const decode = await deps.personIdDecoder(data.orgId);
    const { indexPath } = await deps.index.current();
    void indexPath; // resolves (and builds if needed) the index of the current release before the first batch
    const options = { matchLevels: fm.match_levels as MatchLevel[], spatialMode: fm.spatial_mode as SpatialMode };
    const dir = deps.objects.pathOf(objectKeys.run(data.orgId, data.segmentId, data.uploadVersion, runId));
    const writer = createResultsWriter(dir);
    const today = clock.now();
    let read = 0;
    let matched = 0;
    let batch: { rowId: string; record: Record<string, unknown> }[] = [];

    const batchRows = deps.batchRows?.() ?? BATCH_ROWS;
    // Sequential on purpose: overlapping the next batch's normalization with this batch's match
    // gained nothing on 2 cores (DuckDB's join already uses both) and cost 0.3 GiB of RSS at 1M rows.
    const flush = async () => {
      if (!batch.length) return;
      const direct = new Map<string, bigint>();
      const normalized = batch.map((b, i) => {
        const n = { ...normalizeMatchInput(b.record, { position: read - batch.length + i + 1, today }), rowId: b.rowId };
        if (n.iagPersonId) {
          const key = decode(n.iagPersonId);
          if (key !== null) direct.set(b.rowId, key);
        }
        return n;
      });
      const results = await matcher.matchBatch(normalized, { ...options, directPersonKeys: direct });
      matched += results.filter((r) => r.personKey !== null).length;
      await writer.write(batch.map((b) => b.rowId), results);
      batch = [];
      await db.updateTable('file_matches').set({ rows_read: read, rows_matched: matched, updated_at: clock.now() })
        .where('segment_id', '=', data.segmentId).where('run_id', '=', runId).execute();
    };

    for (let s = 0; s < files.length; s++) {
      const reader = shardReader(files[s]!, fm.file_format as FileFormat, fm.compression as Compression, s);
      let first = true;
      for await (const row of reader.rows()) {
        if (first && fm.file_format === 'csv') {
          const h = reader.header() ?? [];
          if (h.join('\u0000') !== header.join('\u0000')) {
            throw new FileDataError('SHARD_HEADER_MISMATCH', `Shard ${s} header (${h.join(', ')}) differs from shard 0 (${header.join(', ')}); every shard must have the same header row.`);
          }
        }
        first = false;
        let rowId = `row_${read}`;
        if (rowIdColumn) {
          rowId = text(row[rowIdColumn]);
          if (!rowId) throw new FileDataError('INVALID_ROW_ID', `Row ${read + 1} (shard ${s}) has an empty row_id; every row_id needs a non-whitespace character.`);
        }
        read++;
        batch.push({ rowId, record: toRecord(row) });
        if (batch.length >= batchRows) await flush();
      }
      if (first && fm.file_format === 'csv' && (reader.header() ?? []).join('\u0000') !== header.join('\u0000')) {
        throw new FileDataError('SHARD_HEADER_MISMATCH', `Shard ${s} header differs from shard 0; every shard must have the same header row.`);
      }
    }
    await flush();
    if (read === 0) throw new FileDataError('EMPTY_FILE', 'The uploaded file has no data rows.');
    const csv = await writer.close();
    const out = await finalizeResults(deps.warehouse, dir, csv);
    if (out.duplicates.length) {
      throw new FileDataError('DUPLICATE_ROW_ID', `row_id values must be unique across shards; duplicated: ${out.duplicates.join(', ')}.`);
    }
    await deps.beforeSwap?.(data);
    return { ...out, analysis, mappings, confirmed };
  }

  const definition: JobDefinition<ResolveJobData> = {
    name: RESOLVE_JOB,
    queue: RESOLVE_QUEUE,
    // includeMetadata: the handler needs retryCount to know its last attempt (then it fails the segment).
    // notifyPollingIntervalSeconds: with LISTEN/NOTIFY on, pg-boss polls only every 30 s, and retries are never notified.
    work: { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2, includeMetadata: true } as JobDefinition['work'],
    async handle(data, job) {
      const fm = await fileMatchStore.find(db, data.orgId, data.segmentId);
      // Stale (refreshed since) or already settled: nothing to do, so a duplicate delivery is harmless.
      if (!fm || fm.upload_version !== data.uploadVersion || !['queued', 'matching'].includes(fm.matching_status)) return { skipped: true };
      const runId = randomBase62(10);
      await fileMatchStore.update(db, data.orgId, data.segmentId, { matching_status: 'matching', run_id: runId, rows_read: 0, rows_matched: 0, updated_at: clock.now() });
      const runDir = deps.objects.pathOf(objectKeys.run(data.orgId, data.segmentId, data.uploadVersion, runId));
      try {
        const out = await run(data, fm, runId);
        const swapped = await completeMatch({ db, clock, events: deps.events }, data, runId, {
          rowsPath: out.rowsPath, membersPath: out.membersPath, inputCount: out.inputCount, matchCount: out.matchCount, memberCount: out.memberCount,
          mappings: out.mappings, confirmed: out.confirmed, warnings: out.analysis.mapping_warnings,
        });
        if (!swapped) fs.rmSync(runDir, { recursive: true, force: true });
        return { swapped, rows: out.inputCount, matched: out.matchCount };
      } catch (error) {
        fs.rmSync(runDir, { recursive: true, force: true });
        const final = error instanceof FileDataError || job.retryCount >= (RESOLVE_QUEUE.retryLimit ?? 0);
        if (!final) throw error; // pg-boss retries with a new run
        const code = error instanceof FileDataError ? error.code : 'RESOLUTION_FAILED';
        const message = error instanceof FileDataError ? error.message : 'Resolution failed after retries; upload again with POST /v1/segments/{id}/refresh.';
        await failMatch({ db, clock, events: deps.events }, data, code, message);
        return { failed: code };
      }
    },
  };
  return { definition };
}

