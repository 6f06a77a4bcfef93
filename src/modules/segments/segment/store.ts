import type { Kysely, Selectable, Updateable, Insertable } from 'kysely';
import type { Viewer } from '../../../core/caller.ts';
import type { CursorKey } from '../../../core/page.ts';
import type { DB, SegmentsTable } from '../../../db/schema.ts';
import { afterKey } from '../../../db/keyset.ts';

export type SegmentRow = Selectable<SegmentsTable> & { created_at: Date; updated_at: Date; expires_at: Date; version_created_at: Date };
export type SegmentPatch = Updateable<SegmentsTable>;

export type { Viewer };

/**
 * Segment SQL (the segments table is owned by this area: other areas change rows only through the
 * area's service methods). Every method takes the organization; deleted rows are never returned. `db` may be a
 * transaction, so callers compose several writes atomically.
 */
export const segmentStore = {
  async insert(db: Kysely<DB>, row: Insertable<SegmentsTable>): Promise<void> {
    await db.insertInto('segments').values(row).execute();
  },

  async find(db: Kysely<DB>, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<SegmentRow | undefined> {
    let q = db.selectFrom('segments').selectAll().where('org_id', '=', orgId).where('id', '=', id).where('deleted_at', 'is', null);
    if (opts.forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) as SegmentRow | undefined;
  },

  async findMany(db: Kysely<DB>, orgId: string, ids: readonly string[]): Promise<SegmentRow[]> {
    if (ids.length === 0) return [];
    return (await db
      .selectFrom('segments')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', 'in', [...ids])
      .where('deleted_at', 'is', null)
      .execute()) as SegmentRow[];
  },

  /** Newest first, keyset-paged; private rows of other users and (unless asked) archived rows are skipped. */
  async list(
    db: Kysely<DB>,
    viewer: Viewer,
    opts: { includeArchived: boolean; after: CursorKey | null; limit: number },
  ): Promise<SegmentRow[]> {
    let q = db
      .selectFrom('segments')
      .selectAll()
      .where('org_id', '=', viewer.orgId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('visibility', '=', 'org'), eb('created_by', '=', viewer.userId)]));
    if (!opts.includeArchived) q = q.where('status', '!=', 'archived');
    if (opts.after) q = q.where((eb) => afterKey(eb, opts.after!, { at: 'created_at', id: 'id' }));
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute()) as SegmentRow[];
  },

  async update(db: Kysely<DB>, orgId: string, id: string, patch: SegmentPatch): Promise<void> {
    await db.updateTable('segments').set(patch).where('org_id', '=', orgId).where('id', '=', id).where('deleted_at', 'is', null).execute();
  },

  /** Active, non-deleted audiences that reference the segment in either role (spec 2 usage stats). */
  async usage(db: Kysely<DB>, orgId: string, segmentId: string): Promise<{ id: string; name: string; campaign_id: string | null }[]> {
    return db
      .selectFrom('audience_segments as r')
      .innerJoin('audiences as a', 'a.id', 'r.audience_id')
      .select(['a.id', 'a.name', 'a.campaign_id'])
      .where('r.org_id', '=', orgId)
      .where('r.segment_id', '=', segmentId)
      .where('a.status', '=', 'active')
      .where('a.deleted_at', 'is', null)
      .orderBy('a.created_at', 'desc')
      .execute();
  },

  /** Every non-deleted audience referencing the segment (for recounts after a delete). */
  async referencingAudienceIds(db: Kysely<DB>, orgId: string, segmentId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('audience_segments as r')
      .innerJoin('audiences as a', 'a.id', 'r.audience_id')
      .select('a.id')
      .where('r.org_id', '=', orgId)
      .where('r.segment_id', '=', segmentId)
      .where('a.deleted_at', 'is', null)
      .execute();
    return rows.map((r) => r.id);
  },
};

/** "major.minor" of every release a live (not deleted, not expired) segment or audience was made against. */
export async function referencedReleases(db: Kysely<DB>): Promise<Set<string>> {
  const rows = await db
    .selectFrom('segments')
    .select(['release_major', 'release_minor'])
    .distinct()
    .where('deleted_at', 'is', null)
    .where('status', '!=', 'expired')
    .union(
      db
        .selectFrom('audiences')
        .select(['release_major', 'release_minor'])
        .distinct()
        .where('deleted_at', 'is', null)
        .where('status', '!=', 'expired'),
    )
    .execute();
  return new Set(rows.map((r) => `${r.release_major}.${r.release_minor}`));
}
