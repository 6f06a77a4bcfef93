/** Campaigns: named workspaces grouping audiences; an audience belongs to at most one (spec 2, 4.6). */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../../core/caller.ts';
import { DomainError } from '../../../core/errors.ts';
import { pageQuery, toPage } from '../../../core/page.ts';
import type { DB } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { audienceStore } from '../audience/store.ts';
import { dateOnly, segmentSummary } from '../segment/present.ts';
import { segmentStore } from '../segment/store.ts';
import { AudienceErrors, CampaignErrors } from '../shared/errors.ts';
import { visibleTo } from '../shared/rules.ts';
import type { CampaignAudienceDoc, CampaignDoc } from './schemas.ts';
import { campaignStore, type CampaignRow } from './store.ts';

const notFound = CampaignErrors.notFound;
const audienceNotFound = AudienceErrors.notFound;

export function createCampaignService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  const present = (row: CampaignRow, audiences: CampaignAudienceDoc[]): CampaignDoc => ({
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status as CampaignDoc['status'],
    audiences,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  });

  async function find(orgId: string, id: string): Promise<CampaignRow> {
    const row = await campaignStore.find(db, orgId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Expanded audiences (spec 2 "Campaign"): newest link first, private ones only for their creator. */
  async function expand(viewer: Viewer, campaignId: string): Promise<CampaignAudienceDoc[]> {
    const rows = (await audienceStore.ofCampaign(db, viewer.orgId, campaignId)).filter((a) => visibleTo(a, viewer));
    const refs = await audienceStore.refs(
      db,
      viewer.orgId,
      rows.map((r) => r.id),
    );
    const segIds = [...new Set([...refs.values()].flat().map((r) => r.segment_id))];
    const segs = new Map((await segmentStore.findMany(db, viewer.orgId, segIds)).map((s) => [s.id, s]));
    return rows.map((a) => {
      const r = refs.get(a.id) ?? [];
      const ids = (role: string) => r.filter((x) => x.role === role).map((x) => x.segment_id);
      const sums = (role: string) =>
        ids(role).flatMap((id) => {
          const s = segs.get(id);
          return s ? [segmentSummary(s)] : [];
        });
      return {
        id: a.id,
        name: a.name,
        status: a.status as CampaignAudienceDoc['status'],
        record_count: a.record_count,
        segment_ids: ids('include'),
        excluded_segment_ids: ids('exclude'),
        segments: sums('include'),
        excluded_segments: sums('exclude'),
        set_logic: a.set_logic,
        snapshot_version: a.snapshot_version,
        parent_audience_id: a.parent_audience_id,
        expires_at: dateOnly(a.expires_at),
        linked_at: a.linked_at!.toISOString(),
      };
    });
  }

  return {
    async create(viewer: Viewer, input: { name: string; description?: string }) {
      const now = clock.now();
      const id = newId('cmp');
      await campaignStore.insert(db, {
        id,
        org_id: viewer.orgId,
        name: input.name,
        description: input.description ?? '',
        status: 'active',
        created_by: viewer.userId,
        created_at: now,
        updated_at: now,
      });
      return present((await campaignStore.find(db, viewer.orgId, id))!, []);
    },

    async get(viewer: Viewer, id: string) {
      const row = await find(viewer.orgId, id);
      return present(row, await expand(viewer, id));
    },

    async list(viewer: Viewer, q: { limit?: number; cursor?: string; include_archived?: boolean }) {
      const page = pageQuery('campaigns', q);
      const rows = await campaignStore.list(db, viewer.orgId, {
        after: page.after,
        limit: page.fetch,
        includeArchived: q.include_archived ?? false,
      });
      // Audiences are expanded on single GET only (spec 2).
      const { items, next_cursor } = toPage(
        'campaigns',
        rows,
        page.limit,
        (r) => ({ at: r.created_at, id: r.id }),
        (r) => present(r, []),
      );
      return { campaigns: items, count: items.length, next_cursor };
    },

    async patch(viewer: Viewer, id: string, input: { name?: string; description?: string; status?: 'active' | 'archived' }) {
      await find(viewer.orgId, id);
      await campaignStore.update(db, viewer.orgId, id, { ...input, updated_at: clock.now() });
      return present((await campaignStore.find(db, viewer.orgId, id))!, await expand(viewer, id));
    },

    /** 204; idempotent for the same campaign; 409 AUDIENCE_ALREADY_LINKED when linked elsewhere. */
    async link(viewer: Viewer, campaignId: string, audienceId: string): Promise<void> {
      await find(viewer.orgId, campaignId);
      await db.transaction().execute(async (trx) => {
        const a = await audienceStore.find(trx, viewer.orgId, audienceId, { forUpdate: true });
        if (!a || !visibleTo(a, viewer)) throw audienceNotFound();
        if (a.campaign_id === campaignId) return;
        if (a.campaign_id) {
          throw new DomainError('AUDIENCE_ALREADY_LINKED', `Audience ${audienceId} already belongs to campaign ${a.campaign_id}.`, {
            details: { current_campaign_id: a.campaign_id },
            nextStep: `Unlink it first: DELETE /v1/campaigns/${a.campaign_id}/audiences/${audienceId}.`,
          });
        }
        const now = clock.now();
        await audienceStore.update(trx, viewer.orgId, audienceId, { campaign_id: campaignId, linked_at: now, updated_at: now });
      });
    },

    /** 204; unlinking an audience that is not linked to this campaign is a 404. */
    async unlink(viewer: Viewer, campaignId: string, audienceId: string): Promise<void> {
      await find(viewer.orgId, campaignId);
      const a = await audienceStore.find(db, viewer.orgId, audienceId);
      if (!a || !visibleTo(a, viewer) || a.campaign_id !== campaignId) {
        throw new DomainError('AUDIENCE_NOT_LINKED', `Audience ${audienceId} is not linked to campaign ${campaignId}.`);
      }
      await audienceStore.update(db, viewer.orgId, audienceId, { campaign_id: null, linked_at: null, updated_at: clock.now() });
    },
  };
}

export type CampaignService = ReturnType<typeof createCampaignService>;
