/**
 * Billing of usage: reserve a ceiling before work, settle the real amount after, release on failure.
 *
 *   const r = await billing.reserve({ orgId, tier, kind: 'match.microbatch', ceilingQuantity: 100, fingerprint });
 *   ... work ...
 *   await billing.settle(trx, r, matched);   // inside the transaction that publishes the result
 *   // or, on failure: await billing.release(r);
 *
 * The reservation is its own committed row, so a crash mid-work leaves a visible `reserved` row
 * (never an untracked charge); settling is conditional on the row still being reserved.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { unitPriceCents, type RateTable, type UsageKind } from './rates.ts';
import { ledgerStore } from './store.ts';

export interface Reservation {
  id: string;
  orgId: string;
  kind: UsageKind;
  unitPriceCents: number;
  ceilingQuantity: number;
  ceilingCents: number;
}

export function createBillingService(deps: { db: Kysely<DB>; clock: Clock; rates: RateTable }) {
  const { db, clock, rates } = deps;
  return {
    unitPrice: (kind: UsageKind, tier: string | null) => unitPriceCents(rates, kind, tier),

    async reserve(input: { orgId: string; tier: string | null; kind: UsageKind; ceilingQuantity: number; fingerprint: string }): Promise<Reservation> {
      const unit = unitPriceCents(rates, input.kind, input.tier);
      const r: Reservation = {
        id: newId('use'), orgId: input.orgId, kind: input.kind, unitPriceCents: unit,
        ceilingQuantity: input.ceilingQuantity, ceilingCents: unit * input.ceilingQuantity,
      };
      await ledgerStore.insert(db, {
        id: r.id, org_id: r.orgId, kind: r.kind, quantity: r.ceilingQuantity, unit_price_cents: unit, amount_cents: r.ceilingCents,
        status: 'reserved', request_fingerprint: input.fingerprint, created_at: clock.now(),
      });
      return r;
    },

    /** Settles at `quantity` units (capped at the ceiling: a reservation never grows). Returns the cents charged. */
    async settle(trx: Kysely<DB>, r: Reservation, quantity: number): Promise<number> {
      const q = Math.min(Math.max(0, Math.trunc(quantity)), r.ceilingQuantity);
      const cents = q * r.unitPriceCents;
      const ok = await ledgerStore.finish(trx, r.orgId, r.id, { status: 'settled', quantity: q, amount_cents: cents, at: clock.now() });
      if (!ok) throw new Error(`usage reservation ${r.id} is no longer reserved`);
      return cents;
    },

    /** Releases a reservation: nothing is charged. Never throws (it runs on error paths). */
    async release(r: Reservation): Promise<void> {
      await ledgerStore.finish(db, r.orgId, r.id, { status: 'released', quantity: 0, amount_cents: 0, at: clock.now() }).catch(() => false);
    },

    ledger: (orgId: string, kind?: UsageKind) => ledgerStore.list(db, orgId, kind ? { kind } : {}),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
