import type { Kysely, Selectable } from 'kysely';
import type { CursorKey } from '../../core/page.ts';
import { afterKey } from '../../db/keyset.ts';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookSettingsTable, WebhookSubscriptionsTable } from '../../db/schema.ts';

export type SettingsRow = Selectable<WebhookSettingsTable>;
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type DeliveryWithType = DeliveryRow & { event_type: string };

/**
 * SQL for webhooks. Every method takes the executor (the database or the caller's transaction) and,
 * for anything a customer can name, the orgId: another organization's rows are never read.
 */
export const webhookStore = {
  async settings(db: Kysely<DB>, orgId: string): Promise<SettingsRow | undefined> {
    return db.selectFrom('webhook_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },
  async upsertSettings(db: Kysely<DB>, row: SettingsRow): Promise<void> {
    await db
      .insertInto('webhook_settings')
      .values(row)
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          url: row.url,
          secret: row.secret,
          secret_hint: row.secret_hint,
          secret_created_at: row.secret_created_at,
          disabled_at: null,
          disabled_reason: null,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },
  /** Creates the organization's secret if it has none (one-off URLs need one); never replaces one. */
  async ensureSettings(db: Kysely<DB>, row: SettingsRow): Promise<SettingsRow> {
    await db
      .insertInto('webhook_settings')
      .values(row)
      .onConflict((oc) => oc.column('org_id').doNothing())
      .execute();
    return (await webhookStore.settings(db, row.org_id))!;
  },
  async clearUrl(db: Kysely<DB>, orgId: string, at: Date): Promise<void> {
    await db
      .updateTable('webhook_settings')
      .set({ url: null, disabled_at: null, disabled_reason: null, updated_at: at })
      .where('org_id', '=', orgId)
      .execute();
  },
  async disableOrgUrl(db: Kysely<DB>, orgId: string, url: string, reason: string, at: Date): Promise<void> {
    // Only if the URL is still the one that answered 410: a newer URL set since stays enabled.
    await db
      .updateTable('webhook_settings')
      .set({ disabled_at: at, disabled_reason: reason, updated_at: at })
      .where('org_id', '=', orgId)
      .where('url', '=', url)
      .execute();
  },

  async insertSubscription(db: Kysely<DB>, row: SubscriptionRow): Promise<void> {
    await db.insertInto('webhook_subscriptions').values(row).execute();
  },
  async subscription(db: Kysely<DB>, orgId: string, id: string, includeDeleted = false): Promise<SubscriptionRow | undefined> {
    let q = db.selectFrom('webhook_subscriptions').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    if (!includeDeleted) q = q.where('deleted_at', 'is', null);
    return q.executeTakeFirst();
  },
  /** Newest first, keyset-paged on (created_at, id). */
  async subscriptions(db: Kysely<DB>, orgId: string, page: { after: CursorKey | null; limit: number }): Promise<SubscriptionRow[]> {
    let q = db.selectFrom('webhook_subscriptions').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (page.after) q = q.where((eb) => afterKey(eb, page.after!, { at: 'created_at', id: 'id' }));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  },
  async activeSubscriptionsFor(db: Kysely<DB>, orgId: string, type: string): Promise<SubscriptionRow[]> {
    return db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .where((eb) => eb(eb.val(type), '=', eb.fn.any('events')))
      .orderBy('created_at')
      .execute();
  },
  async setSubscriptionStatus(
    db: Kysely<DB>,
    orgId: string,
    id: string,
    patch: { status: string; disabled_reason: string | null; deleted_at?: Date | null },
    at: Date,
  ): Promise<void> {
    await db
      .updateTable('webhook_subscriptions')
      .set({ ...patch, updated_at: at })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute();
  },

  async insertEvent(
    db: Kysely<DB>,
    row: { id: string; org_id: string; type: string; subject_kind: string; subject_id: string; body: string; created_at: Date },
  ): Promise<void> {
    await db.insertInto('events').values(row).execute();
  },
  async event(db: Kysely<DB>, orgId: string, id: string) {
    return db.selectFrom('events').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  },

  async insertDelivery(db: Kysely<DB>, row: Omit<DeliveryRow, 'attempt_count'>): Promise<void> {
    await db.insertInto('webhook_deliveries').values(row).execute();
  },
  async delivery(db: Kysely<DB>, orgId: string, id: string): Promise<DeliveryWithType | undefined> {
    return db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type')
      .where('d.org_id', '=', orgId)
      .where('d.id', '=', id)
      .executeTakeFirst();
  },
  /** Newest first, keyset-paged on (created_at, id). */
  async deliveries(
    db: Kysely<DB>,
    orgId: string,
    filter: { eventId?: string; subscriptionId?: string; after: CursorKey | null; limit: number },
  ): Promise<DeliveryWithType[]> {
    let q = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type')
      .where('d.org_id', '=', orgId);
    if (filter.eventId) q = q.where('d.event_id', '=', filter.eventId);
    if (filter.subscriptionId) q = q.where('d.subscription_id', '=', filter.subscriptionId);
    if (filter.after) q = q.where((eb) => afterKey(eb, filter.after!, { at: 'd.created_at', id: 'd.id' }));
    return q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(filter.limit).execute();
  },
  async attempts(db: Kysely<DB>, orgId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('attempt')
      .execute();
  },

  /** Everything one attempt needs, in one read (the worker's hot path). */
  async forSend(db: Kysely<DB>, orgId: string, deliveryId: string) {
    return db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .leftJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
      .leftJoin('webhook_settings as w', 'w.org_id', 'd.org_id')
      .select([
        'd.id',
        'd.org_id',
        'd.event_id',
        'd.destination',
        'd.subscription_id',
        'd.target_url',
        'd.status',
        'd.attempt_count',
        'e.type as event_type',
        'e.body',
        's.secret as subscription_secret',
        's.status as subscription_status',
        's.deleted_at as subscription_deleted_at',
        'w.secret as org_secret',
        'w.url as org_url',
        'w.disabled_at as org_disabled_at',
      ])
      .where('d.org_id', '=', orgId)
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
  },
  async insertAttempt(db: Kysely<DB>, row: AttemptRow): Promise<void> {
    await db.insertInto('webhook_attempts').values(row).execute();
  },
  /** Records an attempt's outcome only if no other run recorded this attempt first; false if one did. */
  async advance(
    db: Kysely<DB>,
    orgId: string,
    id: string,
    fromAttempt: number,
    patch: Partial<
      Pick<DeliveryRow, 'status' | 'failure_reason' | 'last_status_code' | 'last_error' | 'next_attempt_at' | 'completed_at'>
    > & { attempt_count: number; updated_at: Date },
  ): Promise<boolean> {
    const result = await db
      .updateTable('webhook_deliveries')
      .set(patch)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempt_count', '=', fromAttempt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};
