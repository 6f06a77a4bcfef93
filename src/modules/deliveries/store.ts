/**
 * Rows of the deliveries area: deliveries, delivery quotes and configured destinations. Every method
 * takes the organization; no rules live here.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, DeliveriesTable, DeliveryDestinationsTable, DeliveryQuotesTable } from '../../db/schema.ts';

export type DeliveryRow = Selectable<DeliveriesTable>;
export type QuoteRow = Selectable<DeliveryQuotesTable>;
export type DestinationRow = Selectable<DeliveryDestinationsTable>;

export const deliveryStore = {
  /** Inserts unless a delivery with the same content key exists; false on that conflict. */
  async insertUnlessDelivered(db: Kysely<DB>, row: Insertable<DeliveriesTable>): Promise<boolean> {
    const r = await db
      .insertInto('deliveries')
      .values(row)
      .onConflict((oc) => oc.columns(['org_id', 'content_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return r !== undefined;
  },

  byContentKey: (db: Kysely<DB>, orgId: string, contentKey: string) =>
    db.selectFrom('deliveries').selectAll().where('org_id', '=', orgId).where('content_key', '=', contentKey).executeTakeFirst(),

  find: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('deliveries').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  listForAudience: (db: Kysely<DB>, orgId: string, audienceId: string) =>
    db
      .selectFrom('deliveries')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('audience_id', '=', audienceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),

  /** Moves a processing delivery to its final state; false when it is not processing any more. */
  async finish(db: Kysely<DB>, orgId: string, id: string, patch: Updateable<DeliveriesTable>): Promise<boolean> {
    const r = await db
      .updateTable('deliveries')
      .set(patch)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  setCost: async (db: Kysely<DB>, orgId: string, id: string, cents: number, billedCount: number) => {
    await db
      .updateTable('deliveries')
      .set({ cost_cents: cents, billed_count: billedCount })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute();
  },
};

export const quoteStore = {
  insert: async (db: Kysely<DB>, row: Insertable<DeliveryQuotesTable>) => {
    await db.insertInto('delivery_quotes').values(row).execute();
  },
  find: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('delivery_quotes').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  /** Quotes of one audience version made since `since`, newest first. */
  recentForAudience: (db: Kysely<DB>, orgId: string, audienceId: string, version: number, since: Date) =>
    db
      .selectFrom('delivery_quotes')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('audience_id', '=', audienceId)
      .where('audience_version', '=', version)
      .where('created_at', '>=', since)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(20)
      .execute(),
};

export const destinationStore = {
  insert: async (db: Kysely<DB>, row: Insertable<DeliveryDestinationsTable>) => {
    await db.insertInto('delivery_destinations').values(row).execute();
  },
  find: (db: Kysely<DB>, orgId: string, id: string) =>
    db
      .selectFrom('delivery_destinations')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst(),
  list: (db: Kysely<DB>, orgId: string) =>
    db
      .selectFrom('delivery_destinations')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
  async softDelete(db: Kysely<DB>, orgId: string, id: string, at: Date): Promise<boolean> {
    const r = await db
      .updateTable('delivery_destinations')
      .set({ deleted_at: at })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
};
