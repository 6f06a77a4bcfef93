/** Audience refresh and fork (spec 4.4, 2), and the discovery input resolver (spec 4.2). */
import { AppError } from '../../http/errors.ts';
import type { Composition } from '../../graph/membership/types.ts';
import type { SegmentInput } from '../discovery/input.ts';
import { newId } from '../../lib/ids.ts';
import { SegmentErrors, persistentExpiry, requireRelease, visibleTo } from '../segments/common.ts';
import { membershipOf } from '../segments/membership.ts';
import type { SegmentOperations } from '../segments/operations.ts';
import type { SegmentContext } from '../segments/service.ts';
import { segmentStore } from '../segments/store.ts';
import { loadComposition } from './composition.ts';
import { presentAudience } from './present.ts';
import { audienceRow } from './rows.ts';
import { AudienceErrors, refsOf, type AudienceService } from './service.ts';
import { audienceStore } from './store.ts';
import { campaignStore } from '../campaigns/store.ts';

export function createAudienceOperations(ctx: SegmentContext, audiences: AudienceService, segmentOps: SegmentOperations) {
  const { db, graph, clock } = ctx.deps;

  return {
    /**
     * Refreshes one member segment and gives the audience a new snapshot: version bumped, 90-day expiry
     * renewed, record_count cleared (recount with POST /v1/audiences/{id}/count). Only the named
     * segment is touched.
     */
    async refresh(viewer: { orgId: string; userId: string }, id: string, input: { segment_id?: string; compression?: string; hitl?: boolean; shard_count?: number }) {
      if (!input.segment_id) {
        throw new AppError('SEGMENT_ID_REQUIRED', 400, 'segment_id is required: name the member segment to refresh.', { nextStep: 'Send one of the audience\'s segment_ids.' });
      }
      const audience = await audiences.findVisible(viewer, id);
      if (audience.status === 'archived') throw SegmentErrors.transition('archived', 'active', 'Reactivate the audience with PATCH {"status":"active"} first.');
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      if (!refs.some((r) => r.segment_id === input.segment_id)) {
        throw new AppError('SEGMENT_NOT_A_MEMBER', 400, `Segment ${input.segment_id} is not part of audience ${id}.`, {
          details: { segment_ids: refs.map((r) => r.segment_id) }, nextStep: 'Send one of the audience\'s segment_ids.',
        });
      }
      const segment = await segmentStore.find(db, viewer.orgId, input.segment_id);
      if (!segment || !visibleTo(segment, viewer)) throw SegmentErrors.notFound();
      if (!['filter', 'matched', 'similarity', 'propensity'].includes(segment.subtype)) {
        throw new AppError('UNKNOWN_SUBTYPE', 400, `Segment subtype ${segment.subtype} cannot be refreshed.`);
      }
      // Filter members: the segment refresh is a no-op when nothing changed; the audience still gets its new snapshot.
      // Matched members take the upload options (spec 4.4); they come back pending with fresh URLs.
      const isMatched = segment.subtype === 'matched';
      const refreshed = await segmentOps.refresh(viewer, segment.id, isMatched ? { hitl: input.hitl, shard_count: input.shard_count, compression: input.compression } : { force: false });
      const upload = refreshed as { upload_url?: string; upload_urls?: string[]; upload_expires_at?: string; next_step: string };
      const pending = isMatched && !input.hitl;
      const now = clock.now();
      const release = requireRelease(graph);
      const version = audience.snapshot_version + 1;
      await audienceStore.update(db, viewer.orgId, id, {
        status: pending ? 'pending' : 'active', snapshot_version: version, version_created_at: now, expires_at: persistentExpiry(now),
        record_count: null, record_count_reason: 'not_counted', matched_record_count: null,
        release_major: release.major, release_minor: release.minor, updated_at: now,
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
        next_step: isMatched ? upload.next_step : 'record_count was cleared: recount with POST /v1/audiences/{id}/count.',
        upload_url: upload.upload_url ?? null,
        upload_urls: upload.upload_urls ?? null,
        compression: isMatched ? (input.compression ?? 'none') : null,
        upload_expires_at: upload.upload_expires_at ?? null,
        workflow_run_id: null,
      };
    },

    /** A new audience with the same composition, recording its parent and the parent snapshot it was taken from. */
    async fork(viewer: { orgId: string; userId: string }, id: string, input: { name?: string; visibility?: 'org' | 'private'; campaign_id?: string }) {
      const parent = await audiences.findVisible(viewer, id);
      if (input.campaign_id) {
        if (!(await campaignStore.exists(db, viewer.orgId, input.campaign_id))) throw SegmentErrors.invalidCampaign(input.campaign_id);
      }
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      // Deleted segments are gone from the parent's composition already; the fork does not carry their ids.
      const alive = new Set((await segmentStore.findMany(db, viewer.orgId, refs.map((r) => r.segment_id))).map((s) => s.id));
      const forkRefs = refs.filter((r) => alive.has(r.segment_id));
      if (!forkRefs.some((r) => r.role === 'include')) throw AudienceErrors.missingSegments();
      const release = requireRelease(graph);
      const now = clock.now();
      const newAudienceId = newId('aud');
      const counted = parent.counted_version === parent.snapshot_version && forkRefs.length === refs.length;
      const row = audienceRow({
        id: newAudienceId, orgId: viewer.orgId, name: input.name ?? `${parent.name} (fork)`.slice(0, 200),
        visibility: input.visibility ?? (parent.visibility as 'org' | 'private'), createdBy: viewer.userId,
        setLogic: parent.set_logic as 'union' | 'intersection',
        count: counted
          ? { record_count: parent.record_count, record_count_reason: parent.record_count_reason as never }
          : { record_count: null, record_count_reason: 'not_counted' },
        release, campaignId: input.campaign_id ?? null, now,
        parent: { id: parent.id, snapshotVersion: parent.snapshot_version },
      });
      row.matched_record_count = counted ? parent.matched_record_count : null;
      await db.transaction().execute((trx) => audienceStore.insert(trx, row, forkRefs));
      return presentAudience(db, viewer.orgId, (await audienceStore.find(db, viewer.orgId, newAudienceId))!);
    },

    /**
     * The port discovery calls (src/modules/discovery/input.ts). Organization-scoped; private rows are
     * the creator's, but discovery does not know the user, so they resolve org-wide only when shared.
     */
    async resolveSegmentInput(orgId: string, input: SegmentInput): Promise<Composition> {
      const viewer = { orgId, userId: '' };
      if (input.kind === 'segment') {
        const s = await segmentStore.find(db, orgId, input.segmentId);
        if (!s || !visibleTo(s, viewer)) throw SegmentErrors.notFound();
        return { include: [membershipOf(s)], exclude: [], setLogic: 'union' };
      }
      if (input.kind === 'audience') {
        const a = await audienceStore.find(db, orgId, input.audienceId);
        if (!a || !visibleTo(a, viewer)) throw AudienceErrors.notFound();
        if (a.status === 'expired') {
          throw new AppError('AUDIENCE_EXPIRED', 409, 'The audience version expired.', { nextStep: 'Refresh it (POST /v1/audiences/{id}/refresh) to get a current version.' });
        }
        const refs = (await audienceStore.refs(db, orgId, [a.id])).get(a.id)!;
        return (await loadComposition(db, orgId, refs, a.set_logic as 'union' | 'intersection')).composition;
      }
      const refs = refsOf({ segment_ids: input.segmentIds, excluded_segment_ids: input.excludedSegmentIds });
      if (!refs.some((r) => r.role === 'include')) throw AudienceErrors.missingSegments();
      const rows = new Map((await segmentStore.findMany(db, orgId, refs.map((r) => r.segment_id))).map((s) => [s.id, s]));
      for (const r of refs) {
        const s = rows.get(r.segment_id);
        if (!s || !visibleTo(s, viewer)) throw SegmentErrors.notFound();
        if (s.status === 'archived') throw SegmentErrors.archived(s.id);
      }
      return (await loadComposition(db, orgId, refs, input.setLogic)).composition;
    },
  };
}

export type AudienceOperations = ReturnType<typeof createAudienceOperations>;
