import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Viewer } from '../../../core/caller.ts';
import type { CursorKey } from '../../../core/page.ts';
import type { AudiencesTable, DB } from '../../../db/schema.ts';
import { afterKey } from '../../../db/keyset.ts';

export type AudienceRow = Selectable<AudiencesTable> & {
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
  version_created_at: Date;
  linked_at: Date | null;
};
export type AudiencePatch = Updateable<AudiencesTable>;
export interface SegmentRef {
  segment_id: string;
  role: 'include' | 'exclude';
}

export interface ListOptions {
  includeArchived: boolean;
  /** Only audiences linked to this campaign, ordered by link time. */
  campaignId: string | null;
  unlinked: boolean;
  after: CursorKey | null;
  limit: number;
}

export const audienceStore = {
  async insert(db: Kysely<DB>, row: Insertable<AudiencesTable>, refs: readonly SegmentRef[]): Promise<void> {
    await db.insertInto('audiences').values(row).execute();
    if (refs.length) {
      await db
        .insertInto('audience_segments')
        .values(refs.map((r, position) => ({ audience_id: row.id, segment_id: r.segment_id, org_id: row.org_id, role: r.role, position })))
        .execute();
    }
  },

  async find(db: Kysely<DB>, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<AudienceRow | undefined> {
    let q = db.selectFrom('audiences').selectAll().where('org_id', '=', orgId).where('id', '=', id).where('deleted_at', 'is', null);
    if (opts.forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) as AudienceRow | undefined;
  },

  async findMany(db: Kysely<DB>, orgId: string, ids: readonly string[]): Promise<AudienceRow[]> {
    if (!ids.length) return [];
    return (await db
      .selectFrom('audiences')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', 'in', [...ids])
      .where('deleted_at', 'is', null)
      .execute()) as AudienceRow[];
  },

  /** Refs of several audiences, in their saved order (segment_ids keep deleted segments: spec 2). */
  async refs(db: Kysely<DB>, orgId: string, audienceIds: readonly string[]): Promise<Map<string, SegmentRef[]>> {
    const out = new Map<string, SegmentRef[]>(audienceIds.map((id) => [id, []]));
    if (!audienceIds.length) return out;
    const rows = await db
      .selectFrom('audience_segments')
      .select(['audience_id', 'segment_id', 'role'])
      .where('org_id', '=', orgId)
      .where('audience_id', 'in', [...audienceIds])
      .orderBy('audience_id')
      .orderBy('position')
      .execute();
    for (const r of rows) out.get(r.audience_id)!.push({ segment_id: r.segment_id, role: r.role as SegmentRef['role'] });
    return out;
  },

  async list(db: Kysely<DB>, viewer: Viewer, o: ListOptions): Promise<AudienceRow[]> {
    const sortCol = o.campaignId ? 'linked_at' : 'created_at';
    let q = db
      .selectFrom('audiences')
      .selectAll()
      .where('org_id', '=', viewer.orgId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('visibility', '=', 'org'), eb('created_by', '=', viewer.userId)]));
    if (!o.includeArchived) q = q.where('status', '!=', 'archived');
    if (o.campaignId) q = q.where('campaign_id', '=', o.campaignId);
    if (o.unlinked) q = q.where('campaign_id', 'is', null);
    if (o.after) q = q.where((eb) => afterKey(eb, o.after!, { at: sortCol, id: 'id' }));
    return (await q.orderBy(sortCol, 'desc').orderBy('id', 'desc').limit(o.limit).execute()) as AudienceRow[];
  },

  async update(db: Kysely<DB>, orgId: string, id: string, patch: AudiencePatch): Promise<void> {
    await db.updateTable('audiences').set(patch).where('org_id', '=', orgId).where('id', '=', id).where('deleted_at', 'is', null).execute();
  },

  /** Writes a count only if the audience is still at the snapshot it was computed for. */
  async landCount(db: Kysely<DB>, orgId: string, id: string, version: number, patch: AudiencePatch): Promise<boolean> {
    const r = await db
      .updateTable('audiences')
      .set({ ...patch, counted_version: version })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('snapshot_version', '=', version)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Audiences of a campaign, newest link first (campaign GET). */
  async ofCampaign(db: Kysely<DB>, orgId: string, campaignId: string): Promise<AudienceRow[]> {
    return (await db
      .selectFrom('audiences')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('campaign_id', '=', campaignId)
      .where('deleted_at', 'is', null)
      .orderBy('linked_at', 'desc')
      .orderBy('id', 'desc')
      .execute()) as AudienceRow[];
  },
};
