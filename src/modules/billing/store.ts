/**
 * The usage ledger: one row per billable operation. A row is written `reserved` with the ceiling
 * before the work runs, then `settled` with the real quantity and amount, or `released` (charges
 * nothing) when the work failed. Every method takes the organization.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB, UsageLedgerTable } from '../../db/schema.ts';

export type LedgerRow = Selectable<UsageLedgerTable>;
export type LedgerStatus = 'reserved' | 'settled' | 'released';

export const ledgerStore = {
  async insert(db: Kysely<DB>, row: Omit<LedgerRow, 'settled_at'>): Promise<void> {
    await db.insertInto('usage_ledger').values({ ...row, settled_at: null }).execute();
  },

  /** Moves a reserved row to its final state; false when it was not reserved any more (no double settle). */
  async finish(db: Kysely<DB>, orgId: string, id: string, patch: { status: Exclude<LedgerStatus, 'reserved'>; quantity: number; amount_cents: number; at: Date }): Promise<boolean> {
    const r = await db
      .updateTable('usage_ledger')
      .set({ status: patch.status, quantity: patch.quantity, amount_cents: patch.amount_cents, settled_at: patch.at })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  async list(db: Kysely<DB>, orgId: string, opts: { kind?: string } = {}): Promise<LedgerRow[]> {
    let q = db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId);
    if (opts.kind) q = q.where('kind', '=', opts.kind);
    return q.orderBy('created_at').orderBy('id').execute();
  },
};
