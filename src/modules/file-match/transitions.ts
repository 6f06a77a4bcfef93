/**
 * The two terminal moves of a resolution, each one transaction with its event (outbox): completed
 * (results swapped in, segment active, audiences updated, segment.ready) and failed (segment.failed).
 * Both re-check the upload version and run under a row lock, so a refresh or a duplicate run in
 * between makes them no-ops.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import type { MappingWarning } from './analysis.ts';
import { matchedDetails } from './details.ts';
import { fileMatchStore } from './store.ts';
import type { ResolveJobData } from './upload.ts';

interface Deps {
  db: Kysely<DB>;
  clock: Clock;
  segments: SegmentsApi;
  events: Pick<EventService, 'emit'>;
}

export interface Outcome {
  rowsPath: string;
  membersPath: string;
  inputCount: number;
  matchCount: number;
  memberCount: number;
  mappings: Record<string, string>;
  confirmed: boolean;
  warnings: MappingWarning[];
}

export async function completeMatch(deps: Deps, data: ResolveJobData, runId: string, o: Outcome): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const fm = await fileMatchStore.find(trx, data.orgId, data.segmentId, { forUpdate: true });
    if (!fm || fm.upload_version !== data.uploadVersion || fm.run_id !== runId || fm.matching_status !== 'matching') return false;
    const segment = await deps.segments.findSegment(trx, data.orgId, data.segmentId);
    if (!segment) return false;
    await fileMatchStore.update(trx, data.orgId, data.segmentId, {
      matching_status: 'completed',
      results_path: o.rowsPath,
      rows_read: o.inputCount,
      rows_matched: o.matchCount,
      error_code: null,
      updated_at: now,
    });
    // The customer's own list: counts are exact (no privacy floor on input and match counts).
    await deps.segments.markResolved(trx, data.orgId, data.segmentId, {
      recordCount: o.memberCount,
      inputRecordCount: o.inputCount,
      matchCount: o.matchCount,
      membersPath: o.membersPath,
      details: { ...matchedDetails(segment.details), column_mappings: o.mappings, mapping_confirmed: o.confirmed },
      wrapperAudienceId: fm.audience_id,
      now,
    });
    await deps.events.emit(trx, {
      orgId: data.orgId,
      type: 'segment.ready',
      subject: { kind: 'segment', id: data.segmentId, name: segment.name },
      data: {
        status: 'completed',
        subtype: 'matched',
        audience_id: fm.audience_id,
        match_count: o.matchCount,
        record_count: o.memberCount,
        input_record_count: o.inputCount,
        mapping_warnings: o.warnings,
      },
      webhookUrl: segment.webhook_url,
    });
    return true;
  });
}

export async function failMatch(deps: Deps, data: ResolveJobData, code: string, message: string): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const fm = await fileMatchStore.find(trx, data.orgId, data.segmentId, { forUpdate: true });
    if (!fm || fm.upload_version !== data.uploadVersion || ['completed', 'failed'].includes(fm.matching_status)) return false;
    const segment = await deps.segments.findSegment(trx, data.orgId, data.segmentId);
    if (!segment) return false;
    await fileMatchStore.update(trx, data.orgId, data.segmentId, { matching_status: 'failed', error_code: code, updated_at: now });
    await deps.segments.markFailed(trx, data.orgId, data.segmentId, { message, audienceIds: fm.audience_id ? [fm.audience_id] : [], now });
    await deps.events.emit(trx, {
      orgId: data.orgId,
      type: 'segment.failed',
      subject: { kind: 'segment', id: data.segmentId, name: segment.name },
      data: {
        status: 'failed',
        subtype: 'matched',
        audience_id: fm.audience_id,
        error_code: code,
        error_message: message,
        failed_at: now.toISOString(),
      },
      webhookUrl: segment.webhook_url,
    });
    return true;
  });
}
