/**
 * Billing accounts (one per organization, created on first use): billing mode, parent organization
 * (agency billing), cadence and the current period with its boundary, billing address, payment method
 * and the auto-recharge configuration. Rows are read `FOR UPDATE` where a balance check must be atomic.
 */
import type { Kysely, Selectable } from 'kysely';
import type { BillingAccountsTable, DB } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { nextBoundary, type Cadence } from './terms.ts';

export type AccountRow = Selectable<BillingAccountsTable>;
export const BILLING_MODES = ['prepaid', 'invoiced'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

export const accountStore = {
  /** The organization's account, created with the defaults (invoiced, monthly) when missing. */
  async ensure(db: Kysely<DB>, orgId: string, now: Date, lock = false): Promise<AccountRow> {
    await db
      .insertInto('billing_accounts')
      .values({
        org_id: orgId,
        billing_account_id: newId('ba'),
        mode: 'invoiced',
        parent_org_id: null,
        cadence: 'monthly',
        period_start_at: now,
        boundary_at: nextBoundary(now, 'monthly'),
        billing_address: null,
        payment_method_id: null,
        payment_method_label: null,
        auto_recharge: null,
        recharge_epoch: 0,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('org_id').doNothing())
      .execute();
    let q = db.selectFrom('billing_accounts').selectAll().where('org_id', '=', orgId);
    if (lock) q = q.forUpdate();
    return await q.executeTakeFirstOrThrow();
  },

  update: (db: Kysely<DB>, orgId: string, patch: Partial<Omit<AccountRow, 'org_id' | 'billing_account_id'>>) =>
    db.updateTable('billing_accounts').set(patch).where('org_id', '=', orgId).execute(),

  /** Accounts whose billing boundary is due at `now`. */
  due: (db: Kysely<DB>, now: Date) => db.selectFrom('billing_accounts').selectAll().where('boundary_at', '<=', now).execute(),

  withAutoRecharge: (db: Kysely<DB>) => db.selectFrom('billing_accounts').selectAll().where('auto_recharge', 'is not', null).execute(),
};

export const asCadence = (value: string): Cadence => (value === 'annual' ? 'annual' : 'monthly');
