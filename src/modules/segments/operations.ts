/** Segment state changes: PATCH, refresh, delete, duplicate (spec 3 "Segment status", 4.3). */
import { AppError } from '../../http/errors.ts';
import { newId } from '../../lib/ids.ts';
import { audienceRow } from '../audiences/rows.ts';
import { audienceStore } from '../audiences/store.ts';
import {
  DEFAULT_EPHEMERAL_TTL_HOURS, SegmentErrors, ephemeralExpiry, loadCatalog, parseFilters, persistentExpiry, requireRelease, sameRelease,
} from './common.ts';
import type { SegmentContext } from './service.ts';
import { presentSegment } from './present.ts';
import { segmentStore, type SegmentPatch, type Viewer } from './store.ts';
import type { FilterGroup } from '../../graph/filters/index.ts';

export interface PatchSegmentInput {
  name?: string;
  status?: 'archived' | 'active';
  filters?: unknown;
  filter_groups?: unknown;
  record_limit?: number | null;
}

export function createSegmentOperations(ctx: SegmentContext) {
  const { deps, recount } = ctx;
  const { db, graph, events, clock } = deps;

  /** Clears the audiences' counts that included a segment whose membership changed or vanished. */
  async function recountAudiences(trx: typeof db, orgId: string, segmentId: string, now: Date): Promise<void> {
    for (const audienceId of await segmentStore.referencingAudienceIds(trx, orgId, segmentId)) {
      const a = await audienceStore.find(trx, orgId, audienceId);
      if (!a) continue;
      await audienceStore.update(trx, orgId, audienceId, { record_count: null, record_count_reason: 'counting', matched_record_count: null, updated_at: now });
      await recount.schedule(trx, { orgId, kind: 'audience', id: audienceId, version: a.snapshot_version });
    }
  }

  return {
    async patch(viewer: Viewer, id: string, input: PatchSegmentInput) {
      const current = await ctx.findVisible(db, viewer, id);
      const now = clock.now();
      const patch: SegmentPatch = { updated_at: now };
      if (input.name !== undefined) patch.name = input.name;

      if (input.status && input.status !== current.status) {
        if (input.status === 'archived') {
          patch.status = 'archived'; // from any non-archived state
        } else if (current.status !== 'archived') {
          throw SegmentErrors.transition(current.status, 'active', current.status === 'expired' ? 'Refresh the segment (POST /v1/segments/{id}/refresh) to renew it.' : 'The segment becomes active when processing completes.');
        } else if (current.expires_at <= now) {
          throw SegmentErrors.transition('archived', 'active', 'The segment passed its expiry while archived; duplicate it or create a new one.');
        } else {
          patch.status = 'active';
        }
      }

      const editsMembership = input.filters !== undefined || input.filter_groups !== undefined || input.record_limit !== undefined;
      let count: Awaited<ReturnType<SegmentContext['countSegment']>> | null = null;
      if (editsMembership) {
        if (current.subtype !== 'filter') throw new AppError('INVALID_REQUEST', 400, 'filters and record_limit apply to filter segments only.');
        if (current.status === 'archived' || patch.status === 'archived') throw SegmentErrors.archived(id);
        const groups = input.filters !== undefined || input.filter_groups !== undefined
          ? parseFilters(input, await loadCatalog(graph))
          : (current.filter_groups as FilterGroup[]);
        const recordLimit = input.record_limit !== undefined ? input.record_limit : current.record_limit;
        await ctx.checkCap(groups, recordLimit);
        const release = requireRelease(graph);
        const version = current.current_version + 1;
        count = await ctx.countSegment({ ...current, filter_groups: groups, record_limit: recordLimit, current_version: version });
        Object.assign(patch, {
          filter_groups: JSON.stringify(groups), record_limit: recordLimit, current_version: version, version_created_at: now,
          record_count: count.record_count, record_count_reason: count.record_count_reason, release_major: release.major, release_minor: release.minor,
        });
      }
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.update(trx, viewer.orgId, id, patch);
        if (count?.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id, version: patch.current_version as number });
        if (editsMembership) await recountAudiences(trx, viewer.orgId, id, now);
      });
      return presentSegment((await segmentStore.find(db, viewer.orgId, id))!);
    },

    async refresh(viewer: Viewer, id: string, input: { force?: boolean; hitl?: boolean; shard_count?: number; compression?: string }) {
      const current = await ctx.findVisible(db, viewer, id);
      if (current.status === 'archived') throw SegmentErrors.archived(id);
      if (current.shared_source_segment_id) {
        throw new AppError('SHARED_SOURCE_DATA', 409, 'This duplicate shares its source segment\'s data and cannot be refreshed on its own.', {
          details: { source_segment_id: current.shared_source_segment_id },
          nextStep: `Refresh the source segment ${current.shared_source_segment_id} instead.`,
        });
      }
      const matched = current.subtype === 'matched' ? deps.matched?.() : null;
      if (matched) return matched.refresh(viewer, current, input) as Promise<ReturnType<typeof presentSegment> & { refreshed: boolean; affected_audiences: string[]; next_step: string }>;
      if (current.subtype !== 'filter') {
        throw new AppError('UNKNOWN_SUBTYPE', 400, `Refreshing ${current.subtype} segments is not available yet.`);
      }
      const release = requireRelease(graph);
      const affected = (await segmentStore.usage(db, viewer.orgId, id)).map((u) => u.id);
      const unchanged = current.status === 'active' && sameRelease(release, current);
      if (unchanged && !input.force) {
        return {
          ...presentSegment(current), refreshed: false, affected_audiences: affected,
          next_step: 'Nothing changed since the last version (same filters, same data release); send force: true to bump the version anyway.',
        };
      }
      const now = clock.now();
      const version = current.current_version + 1;
      const count = await ctx.countSegment({ ...current, current_version: version });
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.update(trx, viewer.orgId, id, {
          status: 'active', current_version: version, version_created_at: now,
          record_count: count.record_count, record_count_reason: count.record_count_reason,
          release_major: release.major, release_minor: release.minor, updated_at: now,
          expires_at: current.ephemeral ? ephemeralExpiry(now, DEFAULT_EPHEMERAL_TTL_HOURS) : persistentExpiry(now),
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id, version });
        await events.segmentReady(trx, {
          orgId: viewer.orgId, segmentId: id, name: current.name, subtype: current.subtype, audienceId: null, recordCount: count.record_count, webhookUrl: current.webhook_url,
        });
      });
      return {
        ...presentSegment((await segmentStore.find(db, viewer.orgId, id))!), refreshed: true, affected_audiences: affected,
        next_step: affected.length
          ? 'Audiences using this segment were not refreshed: refresh each (POST /v1/audiences/{id}/refresh with this segment_id) to deliver the new version.'
          : 'The new version is ready; compose it into an audience with POST /v1/audiences.',
      };
    },

    async remove(viewer: Viewer, id: string, confirmImpact: boolean): Promise<void> {
      await ctx.findVisible(db, viewer, id);
      const usage = await segmentStore.usage(db, viewer.orgId, id);
      if (usage.length && !confirmImpact) {
        const campaigns = new Set(usage.map((u) => u.campaign_id).filter((c) => c !== null));
        throw new AppError('SEGMENT_IN_USE', 409, `Segment ${id} is used by ${usage.length} active audience(s).`, {
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

    async duplicate(viewer: Viewer, id: string, input: { name?: string; visibility?: 'org' | 'private'; campaign_id?: string; create_audience?: boolean }) {
      const parent = await ctx.findVisible(db, viewer, id);
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const release = requireRelease(graph);
      const now = clock.now();
      const newIdValue = newId('seg');
      // A matched duplicate reads the source's member set rather than re-resolving an upload.
      const sharesSource = parent.subtype === 'matched';
      const count = parent.subtype === 'filter'
        ? await ctx.countSegment({ ...parent, id: newIdValue, current_version: 1 })
        : { record_count: parent.record_count, record_count_reason: parent.record_count_reason as never, deferred: false };
      const name = input.name ?? `${parent.name} (copy)`.slice(0, 120);
      const audienceId = input.create_audience ? newId('aud') : null;
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.insert(trx, {
          id: newIdValue, org_id: viewer.orgId, name, subtype: parent.subtype,
          status: parent.subtype === 'filter' ? 'active' : parent.status === 'archived' || parent.status === 'expired' ? 'active' : parent.status,
          visibility: input.visibility ?? parent.visibility, created_by: viewer.userId, ephemeral: false,
          record_count: count.record_count, record_count_reason: count.record_count_reason,
          current_version: 1, version_created_at: now, record_limit: parent.record_limit,
          filter_groups: parent.filter_groups === null ? null : JSON.stringify(parent.filter_groups),
          details: JSON.stringify(parent.details ?? {}), input_record_count: parent.input_record_count, match_count: parent.match_count,
          members_path: parent.members_path,
          shared_source_segment_id: sharesSource ? (parent.shared_source_segment_id ?? parent.id) : null,
          error_message: null, workflow_run_id: null, origin_campaign_id: input.campaign_id ?? null, webhook_url: null,
          release_major: release.major, release_minor: release.minor,
          parent_segment_id: parent.id, root_segment_id: parent.root_segment_id ?? parent.id, parent_version: parent.current_version,
          expires_at: persistentExpiry(now), created_at: now, updated_at: now, deleted_at: null,
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id: newIdValue, version: 1 });
        if (audienceId) {
          await audienceStore.insert(trx, audienceRow({
            id: audienceId, orgId: viewer.orgId, name, visibility: input.visibility ?? (parent.visibility as 'org' | 'private'), createdBy: viewer.userId,
            setLogic: 'union', count, release, campaignId: input.campaign_id ?? null, now,
          }), [{ segment_id: newIdValue, role: 'include' }]);
          if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: audienceId, version: 1 });
        }
        if (parent.subtype === 'filter') {
          await events.segmentReady(trx, { orgId: viewer.orgId, segmentId: newIdValue, name, subtype: parent.subtype, audienceId, recordCount: count.record_count, webhookUrl: null });
        }
      });
      return { ...presentSegment((await segmentStore.find(db, viewer.orgId, newIdValue))!), ...(audienceId ? { audience_id: audienceId } : {}) };
    },
  };
}

export type SegmentOperations = ReturnType<typeof createSegmentOperations>;
