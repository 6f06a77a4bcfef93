/** Audience refresh and fork (spec 4.4, 2). */
import type { Viewer } from '../../../core/caller.ts';
import { DomainError } from '../../../core/errors.ts';
import { newId } from '../../../lib/ids.ts';
import type { SegmentsContext } from '../context.ts';
import type { SegmentService } from '../segment/service.ts';
import { segmentStore } from '../segment/store.ts';
import { AudienceErrors, SegmentErrors } from '../shared/errors.ts';
import { persistentExpiry, requireRelease } from '../shared/rules.ts';
import { audienceRow } from './rows.ts';
import type { AudienceDoc, ForkAudienceInput, RefreshAudienceInput } from './schemas.ts';
import { audienceStore } from './store.ts';

export function createAudienceChanges(ctx: SegmentsContext, segments: SegmentService) {
  const { db, deps } = ctx;
  const { graph, clock } = deps;

  return {
    /**
     * Refreshes one member segment and gives the audience a new snapshot: version bumped, 90-day expiry
     * renewed, record_count cleared (recount with POST /v1/audiences/{id}/count). Only the named
     * segment is touched; a member that comes back pending (an upload, a relaunch) makes the audience pending.
     */
    async refresh(viewer: Viewer, id: string, input: RefreshAudienceInput) {
      if (!input.segment_id) {
        throw new DomainError('SEGMENT_ID_REQUIRED', 'segment_id is required: name the member segment to refresh.', {
          nextStep: "Send one of the audience's segment_ids.",
        });
      }
      const audience = await ctx.findVisibleAudience(viewer, id);
      if (audience.status === 'archived')
        throw SegmentErrors.transition('archived', 'active', 'Reactivate the audience with PATCH {"status":"active"} first.');
      // An id that resolves to nothing the caller can see (unknown, deleted, another organization's or
      // another user's private segment) is 404 SEGMENT_NOT_FOUND (spec 4.4, 7); only an existing
      // segment outside the audience is 400 SEGMENT_NOT_A_MEMBER.
      const segment = await ctx.findVisibleSegment(viewer, input.segment_id);
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      if (!refs.some((r) => r.segment_id === segment.id)) {
        throw new DomainError('SEGMENT_NOT_A_MEMBER', `Segment ${segment.id} is not part of audience ${id}.`, {
          details: { segment_ids: refs.map((r) => r.segment_id) },
          nextStep: "Send one of the audience's segment_ids.",
        });
      }
      const { segment_id: _s, ...segmentInput } = input;
      const refreshed = await segments.refresh(viewer, segment.id, segmentInput);
      const pending = refreshed.status === 'pending';
      const now = clock.now();
      const release = requireRelease(graph);
      const version = audience.snapshot_version + 1;
      await audienceStore.update(db, viewer.orgId, id, {
        status: pending ? 'pending' : 'active',
        snapshot_version: version,
        version_created_at: now,
        expires_at: persistentExpiry(now),
        record_count: null,
        record_count_reason: 'not_counted',
        matched_record_count: null,
        release_major: release.major,
        release_minor: release.minor,
        updated_at: now,
      });
      return {
        audience_id: id,
        segment_id: segment.id,
        version,
        version_created_at: now.toISOString(),
        expires_at: persistentExpiry(now).toISOString().slice(0, 10),
        status: pending ? ('pending' as const) : ('active' as const),
        subtype: segment.subtype,
        refreshed: true,
        segment_refreshed: refreshed.refreshed,
        next_step:
          refreshed.upload_url || refreshed.upload_urls
            ? refreshed.next_step
            : 'record_count was cleared: recount with POST /v1/audiences/{id}/count.',
        upload_url: refreshed.upload_url ?? null,
        upload_urls: refreshed.upload_urls ?? null,
        compression: refreshed.upload_url || refreshed.upload_urls ? (input.compression ?? 'none') : null,
        upload_expires_at: refreshed.upload_expires_at ?? null,
        workflow_run_id: refreshed.workflow_run_id ?? null,
      };
    },

    /** A new audience with the same composition, recording its parent and the parent snapshot it was taken from. */
    async fork(viewer: Viewer, id: string, input: ForkAudienceInput): Promise<AudienceDoc> {
      const parent = await ctx.findVisibleAudience(viewer, id);
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      // Deleted segments are gone from the parent's composition already; the fork does not carry their ids.
      const alive = new Set(
        (
          await segmentStore.findMany(
            db,
            viewer.orgId,
            refs.map((r) => r.segment_id),
          )
        ).map((s) => s.id),
      );
      const forkRefs = refs.filter((r) => alive.has(r.segment_id));
      if (!forkRefs.some((r) => r.role === 'include')) throw AudienceErrors.missingSegments();
      const release = requireRelease(graph);
      const now = clock.now();
      const forkId = newId('aud');
      const counted = parent.counted_version === parent.snapshot_version && forkRefs.length === refs.length;
      const row = audienceRow({
        id: forkId,
        orgId: viewer.orgId,
        name: input.name ?? `${parent.name} (fork)`.slice(0, 200),
        visibility: input.visibility ?? (parent.visibility as 'org' | 'private'),
        createdBy: viewer.userId,
        setLogic: parent.set_logic as 'union' | 'intersection',
        count: counted
          ? { record_count: parent.record_count, record_count_reason: parent.record_count_reason as never }
          : { record_count: null, record_count_reason: 'not_counted' },
        release,
        campaignId: input.campaign_id ?? null,
        now,
        parent: { id: parent.id, snapshotVersion: parent.snapshot_version },
      });
      row.matched_record_count = counted ? parent.matched_record_count : null;
      await db.transaction().execute((trx) => audienceStore.insert(trx, row, forkRefs));
      return (await ctx.presentAudiences(viewer.orgId, [(await audienceStore.find(db, viewer.orgId, forkId))!]))[0]!;
    },
  };
}

export type AudienceChanges = ReturnType<typeof createAudienceChanges>;
