/** Segment edits: PATCH (rename, archive / unarchive, membership), delete and duplicate (spec 3, 4.3). */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../../core/caller.ts';
import { DomainError } from '../../../core/errors.ts';
import type { DB } from '../../../db/schema.ts';
import { newId } from '../../../lib/ids.ts';
import { audienceStore } from '../audience/store.ts';
import type { SegmentsContext } from '../context.ts';
import { SegmentErrors } from '../shared/errors.ts';
import { persistentExpiry, requireRelease } from '../shared/rules.ts';
import type { DuplicateSegmentInput, PatchSegmentInput, SegmentDoc, CreatedSegmentDoc } from './schemas.ts';
import { segmentStore, type SegmentPatch, type SegmentRow } from './store.ts';
import { segmentTransitions } from './transitions.ts';

export function createSegmentChanges(ctx: SegmentsContext) {
  const { db, recount, registry, deps } = ctx;
  const { graph, events, clock } = deps;

  /** Clears the counts of audiences that included a segment whose membership changed or vanished. */
  async function recountAudiences(trx: Kysely<DB>, orgId: string, segmentId: string, now: Date): Promise<void> {
    for (const audienceId of await segmentStore.referencingAudienceIds(trx, orgId, segmentId)) {
      const a = await audienceStore.find(trx, orgId, audienceId);
      if (!a) continue;
      await audienceStore.update(trx, orgId, audienceId, {
        record_count: null,
        record_count_reason: 'counting',
        matched_record_count: null,
        updated_at: now,
      });
      await recount.schedule(trx, { orgId, kind: 'audience', id: audienceId, version: a.snapshot_version });
    }
  }

  /** archived from any other state; back to the state it had before archiving (decision 012), unless expired meanwhile. */
  function statusPatch(current: SegmentRow, wanted: 'archived' | 'active' | undefined, now: Date): SegmentPatch {
    if (!wanted || wanted === current.status) return {};
    if (wanted === 'archived') return { status: 'archived', archived_from_status: current.status };
    if (current.status !== 'archived') {
      throw SegmentErrors.transition(
        current.status,
        'active',
        current.status === 'expired'
          ? 'Refresh the segment (POST /v1/segments/{id}/refresh) to renew it.'
          : 'The segment becomes active when processing completes.',
      );
    }
    if (current.expires_at <= now)
      throw SegmentErrors.transition(
        'archived',
        'active',
        'The segment passed its expiry while archived; duplicate it or create a new one.',
      );
    return { status: current.archived_from_status ?? 'active', archived_from_status: null };
  }

  return {
    async patch(viewer: Viewer, id: string, input: PatchSegmentInput): Promise<SegmentDoc> {
      const current = await ctx.findVisibleSegment(viewer, id);
      const now = clock.now();
      const patch: SegmentPatch = { updated_at: now, ...statusPatch(current, input.status, now) };
      if (input.name !== undefined) patch.name = input.name;
      const editsMembership = input.filters !== undefined || input.filter_groups !== undefined || input.record_limit !== undefined;
      let edit = null;
      if (editsMembership) {
        const subtype = registry.get(current.subtype, 'Editing');
        if (!subtype.editMembership) {
          if (input.record_limit !== undefined) throw SegmentErrors.recordLimitUnsupported(current.subtype);
          throw SegmentErrors.fieldsNotForSubtype(
            ['filters', 'filter_groups'].filter((f) => (input as Record<string, unknown>)[f] !== undefined),
            current.subtype,
          );
        }
        if (current.status === 'archived' || patch.status === 'archived') throw SegmentErrors.archived(id);
        edit = await subtype.editMembership(viewer, current, input);
        Object.assign(patch, edit.patch);
      }
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.update(trx, viewer.orgId, id, patch);
        if (edit?.count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id, version: edit.version });
        if (edit) await recountAudiences(trx, viewer.orgId, id, now);
      });
      return ctx.present((await segmentStore.find(db, viewer.orgId, id))!);
    },

    async remove(viewer: Viewer, id: string, confirmImpact: boolean): Promise<void> {
      await ctx.findVisibleSegment(viewer, id);
      const usage = await segmentStore.usage(db, viewer.orgId, id);
      if (usage.length && !confirmImpact) {
        const campaigns = new Set(usage.map((u) => u.campaign_id).filter((c) => c !== null));
        throw new DomainError('SEGMENT_IN_USE', `Segment ${id} is used by ${usage.length} active audience(s).`, {
          details: {
            audience_count: usage.length,
            campaign_count: campaigns.size,
            audiences: usage.map((u) => ({ audience_id: u.id, name: u.name, campaign_id: u.campaign_id })),
          },
          nextStep: 'Send DELETE again with ?confirm_impact=true: those audiences lose the segment from their composition and count.',
        });
      }
      const now = clock.now();
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.update(trx, viewer.orgId, id, { deleted_at: now, updated_at: now });
        await recountAudiences(trx, viewer.orgId, id, now);
      });
    },

    async duplicate(viewer: Viewer, id: string, input: DuplicateSegmentInput): Promise<CreatedSegmentDoc> {
      const parent = await ctx.findVisibleSegment(viewer, id);
      const subtype = registry.get(parent.subtype, 'Duplicating');
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const release = requireRelease(graph);
      const now = clock.now();
      const copyId = newId('seg');
      const recounts = subtype.onDuplicate === 'recount';
      const count = recounts
        ? await ctx.countSegment({ ...parent, id: copyId, current_version: 1 })
        : { record_count: parent.record_count, record_count_reason: parent.record_count_reason as never, deferred: false };
      const name = input.name ?? `${parent.name} (copy)`.slice(0, 120);
      const visibility = input.visibility ?? (parent.visibility as 'org' | 'private');
      // A shared-source duplicate reads the source's member set; it is as far along as its source.
      const status = recounts || parent.status === 'archived' || parent.status === 'expired' ? 'active' : parent.status;
      await recount.ready();
      const audienceId = await db.transaction().execute(async (trx) => {
        await segmentTransitions.insert(trx, {
          id: copyId,
          orgId: viewer.orgId,
          name,
          subtype: subtype.name,
          status: status as 'active' | 'pending',
          visibility,
          createdBy: viewer.userId,
          count,
          release,
          now,
          expiresAt: persistentExpiry(now),
          recordLimit: parent.record_limit,
          filterGroups: parent.filter_groups as never,
          details: (parent.details ?? {}) as object,
          inputRecordCount: parent.input_record_count,
          matchCount: parent.match_count,
          membersPath: parent.members_path,
          sharedSourceSegmentId: recounts ? null : (parent.shared_source_segment_id ?? parent.id),
          originCampaignId: input.campaign_id ?? null,
          lineage: {
            parentSegmentId: parent.id,
            rootSegmentId: parent.root_segment_id ?? parent.id,
            parentVersion: parent.current_version,
          },
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id: copyId, version: 1 });
        const wrapper = input.create_audience
          ? await segmentTransitions.insertWrapperAudience(trx, {
              orgId: viewer.orgId,
              segmentId: copyId,
              name,
              visibility,
              createdBy: viewer.userId,
              status: 'active',
              count,
              release,
              campaignId: input.campaign_id ?? null,
              now,
            })
          : null;
        if (wrapper && count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: wrapper, version: 1 });
        if (recounts) {
          await events.emit(trx, {
            orgId: viewer.orgId,
            type: 'segment.ready',
            subject: { kind: 'segment', id: copyId, name },
            data: { status: 'completed', subtype: subtype.name, audience_id: wrapper, record_count: count.record_count },
            webhookUrl: null,
          });
        }
        return wrapper;
      });
      return { ...ctx.present((await segmentStore.find(db, viewer.orgId, copyId))!), ...(audienceId ? { audience_id: audienceId } : {}) };
    },
  };
}

export type SegmentChanges = ReturnType<typeof createSegmentChanges>;
