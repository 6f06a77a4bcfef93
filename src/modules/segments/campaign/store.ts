import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { CursorKey } from '../../../core/page.ts';
import type { CampaignsTable, DB } from '../../../db/schema.ts';
import { afterKey } from '../../../db/keyset.ts';

export type CampaignRow = Selectable<CampaignsTable> & { created_at: Date; updated_at: Date };

export const campaignStore = {
  async insert(db: Kysely<DB>, row: Insertable<CampaignsTable>): Promise<void> {
    await db.insertInto('campaigns').values(row).execute();
  },
  async find(db: Kysely<DB>, orgId: string, id: string): Promise<CampaignRow | undefined> {
    return (await db.selectFrom('campaigns').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst()) as
      CampaignRow | undefined;
  },
  async exists(db: Kysely<DB>, orgId: string, id: string): Promise<boolean> {
    return !!(await db.selectFrom('campaigns').select('id').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst());
  },
  async list(
    db: Kysely<DB>,
    orgId: string,
    o: { after: CursorKey | null; limit: number; includeArchived: boolean },
  ): Promise<CampaignRow[]> {
    let q = db.selectFrom('campaigns').selectAll().where('org_id', '=', orgId);
    if (!o.includeArchived) q = q.where('status', '!=', 'archived');
    if (o.after) q = q.where((eb) => afterKey(eb, o.after!, { at: 'created_at', id: 'id' }));
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(o.limit).execute()) as CampaignRow[];
  },
  async update(db: Kysely<DB>, orgId: string, id: string, patch: Updateable<CampaignsTable>): Promise<void> {
    await db.updateTable('campaigns').set(patch).where('org_id', '=', orgId).where('id', '=', id).execute();
  },
};
