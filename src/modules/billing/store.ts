/**
 * The usage ledger: one row per billable event. A row is written `reserved` with the ceiling before
 * the work runs, then `settled` with the real quantity and amount, or `released` (charges nothing)
 * when the work failed. A row may carry an idempotency key: one row per key and organization, so a
 * retried or racing charge finds the first. Every method takes the organization.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, UsageLedgerTable } from '../../db/schema.ts';

export type LedgerRow = Selectable<UsageLedgerTable>;
export type LedgerStatus = 'reserved' | 'settled' | 'released';
export type NewLedgerRow = Omit<LedgerRow, 'settled_at' | 'idempotency_key' | 'covered_cents' | 'details'> &
  Partial<Pick<LedgerRow, 'idempotency_key' | 'covered_cents' | 'details' | 'settled_at'>>;

export const ledgerStore = {
  async insert(db: Kysely<DB>, row: NewLedgerRow): Promise<void> {
    await db
      .insertInto('usage_ledger')
      .values({ settled_at: null, idempotency_key: null, covered_cents: 0, details: null, ...row })
      .execute();
  },

  /** Inserts unless the key was used; true when this call inserted (the caller charges), false when it was there. */
  async insertOnce(db: Kysely<DB>, row: NewLedgerRow & { idempotency_key: string }): Promise<boolean> {
    const r = await db
      .insertInto('usage_ledger')
      .values({ settled_at: null, covered_cents: 0, details: null, ...row })
      .onConflict((oc) => oc.columns(['org_id', 'idempotency_key']).doNothing())
      .returning('id')
      .execute();
    return r.length === 1;
  },

  byKey: (db: Kysely<DB>, orgId: string, key: string) =>
    db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).where('idempotency_key', '=', key).executeTakeFirst(),

  byId: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  /** Moves a reserved row to its final state; false when it was not reserved any more (no double settle). */
  async finish(
    db: Kysely<DB>,
    orgId: string,
    id: string,
    patch: { status: Exclude<LedgerStatus, 'reserved'>; quantity: number; amount_cents: number; at: Date; details?: string | null },
  ): Promise<boolean> {
    const r = await db
      .updateTable('usage_ledger')
      .set({
        status: patch.status,
        quantity: patch.quantity,
        amount_cents: patch.amount_cents,
        settled_at: patch.at,
        ...(patch.details !== undefined ? { details: patch.details } : {}),
      })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  setCovered: (db: Kysely<DB>, orgId: string, id: string, cents: number) =>
    db.updateTable('usage_ledger').set({ covered_cents: cents }).where('org_id', '=', orgId).where('id', '=', id).execute(),

  /** Cents held by reservations not yet settled or released. */
  async reservedCents(db: Kysely<DB>, orgId: string): Promise<number> {
    const r = await db
      .selectFrom('usage_ledger')
      .select((eb) => eb.fn.sum<string | number | null>('amount_cents').as('c'))
      .where('org_id', '=', orgId)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    return Number(r?.c ?? 0);
  },

  async list(db: Kysely<DB>, orgId: string, opts: { kind?: string; from?: Date; to?: Date } = {}): Promise<LedgerRow[]> {
    let q = db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId);
    if (opts.kind) q = q.where('kind', '=', opts.kind);
    if (opts.from) q = q.where('created_at', '>=', opts.from);
    if (opts.to) q = q.where('created_at', '<', opts.to);
    return q.orderBy('created_at').orderBy('id').execute();
  },
};
