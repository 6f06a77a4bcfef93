/**
 * The segment row changes other areas make through this area (spec 3 "Segment status"), each in the
 * caller's transaction: insert, subtype details, back to pending, resolved, failed. Each also moves the
 * audiences that use the segment, so an audience's status and count never disagree with its members.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { newId } from '../../../lib/ids.ts';
import { audienceRow } from '../audience/rows.ts';
import { audienceStore } from '../audience/store.ts';
import type { ReleaseRef } from '../shared/ports.ts';
import { persistentExpiry, type ShownCount } from '../shared/rules.ts';
import { newSegmentRow, type NewSegment } from './rows.ts';
import { segmentStore, type SegmentPatch } from './store.ts';

export interface WrapperAudience {
  orgId: string;
  segmentId: string;
  name: string;
  visibility: 'org' | 'private';
  createdBy: string;
  status: 'active' | 'pending';
  count: ShownCount;
  release: ReleaseRef;
  campaignId: string | null;
  now: Date;
}

export interface Resolution {
  /** Distinct members (the customer's own list: exact, no privacy floor). */
  recordCount: number;
  /** The count as shown when the members are graph-derived (a model-built segment): through the privacy layer. */
  shown?: ShownCount;
  inputRecordCount: number | null;
  matchCount: number | null;
  membersPath: string;
  details: object;
  /** The wrapper audience gets the counts at once; other audiences using the segment recount. */
  wrapperAudienceId: string | null;
  now: Date;
}

export const segmentTransitions = {
  async insert(trx: Kysely<DB>, segment: NewSegment): Promise<void> {
    await segmentStore.insert(trx, newSegmentRow(segment));
  },

  /** An audience of exactly one included segment, created with it (create_audience). Returns its id. */
  async insertWrapperAudience(trx: Kysely<DB>, w: WrapperAudience): Promise<string> {
    const id = newId('aud');
    const row = audienceRow({
      id,
      orgId: w.orgId,
      name: w.name,
      visibility: w.visibility,
      createdBy: w.createdBy,
      setLogic: 'union',
      count: w.count,
      release: w.release,
      campaignId: w.campaignId,
      now: w.now,
    });
    await audienceStore.insert(trx, { ...row, status: w.status, ...(w.status === 'pending' ? { counted_version: null } : {}) }, [
      { segment_id: w.segmentId, role: 'include' },
    ]);
    return id;
  },

  async setDetails(trx: Kysely<DB>, orgId: string, id: string, details: object, now?: Date): Promise<void> {
    await segmentStore.update(trx, orgId, id, { details: JSON.stringify(details), ...(now ? { updated_at: now } : {}) });
  },

  /** Back to pending (a new upload or a relaunch): counts cleared; audiences using it pending too. */
  async markPending(
    trx: Kysely<DB>,
    orgId: string,
    id: string,
    o: { details?: object; newVersion?: number; now: Date; workflowRunId?: string | null },
  ): Promise<void> {
    const patch: SegmentPatch = {
      status: 'pending',
      record_count: null,
      record_count_reason: 'counting',
      input_record_count: null,
      match_count: null,
      error_message: null,
      updated_at: o.now,
    };
    if (o.details) patch.details = JSON.stringify(o.details);
    if (o.newVersion !== undefined)
      Object.assign(patch, { current_version: o.newVersion, version_created_at: o.now, expires_at: persistentExpiry(o.now) });
    if (o.workflowRunId !== undefined) patch.workflow_run_id = o.workflowRunId;
    await segmentStore.update(trx, orgId, id, patch);
    for (const audienceId of await segmentStore.referencingAudienceIds(trx, orgId, id)) {
      await audienceStore.update(trx, orgId, audienceId, {
        status: 'pending',
        record_count: null,
        record_count_reason: 'counting',
        matched_record_count: null,
        match_count: null,
        input_record_count: null,
        updated_at: o.now,
      });
    }
  },

  /** pending -> active with its member set (spec 3); pending audiences become active. */
  async markResolved(trx: Kysely<DB>, orgId: string, id: string, r: Resolution): Promise<void> {
    const shown = r.shown ?? { record_count: r.recordCount, record_count_reason: null };
    await segmentStore.update(trx, orgId, id, {
      status: 'active',
      ...shown,
      input_record_count: r.inputRecordCount,
      match_count: r.matchCount,
      members_path: r.membersPath,
      details: JSON.stringify(r.details),
      error_message: null,
      updated_at: r.now,
    });
    for (const audienceId of await segmentStore.referencingAudienceIds(trx, orgId, id)) {
      const a = await audienceStore.find(trx, orgId, audienceId);
      if (!a) continue;
      const wrapper = audienceId === r.wrapperAudienceId;
      await audienceStore.update(trx, orgId, audienceId, {
        ...(a.status === 'pending' ? { status: 'active' } : {}),
        ...(wrapper
          ? {
              match_count: r.matchCount,
              input_record_count: r.inputRecordCount,
              ...shown,
              matched_record_count: shown.record_count,
              counted_version: a.snapshot_version,
            }
          : { record_count: null, record_count_reason: 'not_counted', matched_record_count: null }),
        updated_at: r.now,
      });
    }
  },

  /** -> failed with a message (spec 3); the named audiences (the wrapper, a linked one) fail with it. */
  async markFailed(
    trx: Kysely<DB>,
    orgId: string,
    id: string,
    o: { message: string; audienceIds: readonly string[]; now: Date },
  ): Promise<void> {
    await segmentStore.update(trx, orgId, id, { status: 'failed', error_message: o.message, record_count_reason: null, updated_at: o.now });
    for (const audienceId of new Set(o.audienceIds)) {
      if (await audienceStore.find(trx, orgId, audienceId))
        await audienceStore.update(trx, orgId, audienceId, { status: 'failed', updated_at: o.now });
    }
  },
};
