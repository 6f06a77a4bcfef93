/**
 * Billing of usage: reserve a ceiling before work, settle the real amount after, release on failure.
 *
 *   const r = await billing.reserve({ orgId, tier, kind: 'match.microbatch', ceilingQuantity: 100, fingerprint });
 *   ... work ...
 *   await billing.settle(trx, r, matched);   // inside the transaction that publishes the result
 *   // or, on failure: await billing.release(r);
 *
 * The reservation is its own committed row, so a crash mid-work leaves a visible `reserved` row
 * (never an untracked charge); settling is conditional on the row still being reserved. A prepaid
 * organization (or the parent that pays for it) must hold enough applicable credit for the ceiling on
 * top of its open reservations, else 402 BILLING_INSUFFICIENT_BALANCE before any work starts. Settled
 * amounts draw down credits and commits in burn-down order (credits.ts).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { RateTable, UsageKind } from '../../config/index.ts';
import { accountStore } from './accounts-store.ts';
import { available, creditStore, drawDown } from './credits.ts';
import { centsToUsd, unitPriceCents } from './rates.ts';
import { ledgerStore } from './store.ts';
import { discounted } from './terms.ts';

export interface Reservation {
  id: string;
  orgId: string;
  kind: string;
  unitPriceCents: number;
  ceilingQuantity: number;
  ceilingCents: number;
}

export function insufficientBalance(neededCents: number, availableCents: number): DomainError {
  return new DomainError(
    'BILLING_INSUFFICIENT_BALANCE',
    `The prepaid balance cannot cover this request: $${centsToUsd(neededCents)} is needed, $${centsToUsd(Math.max(0, availableCents))} is available.`,
    {
      nextStep:
        'Add credit (enable auto-recharge with PUT /v1/account/auto-recharge, or ask your account manager) and send the request again.',
      details: {
        amount_needed: centsToUsd(neededCents - Math.max(0, availableCents)),
        required_amount: centsToUsd(neededCents),
        available_balance: centsToUsd(Math.max(0, availableCents)),
      },
    },
  );
}

export function createLedgerService(deps: { db: Kysely<DB>; clock: Clock; rates: RateTable }) {
  const { db, clock, rates } = deps;

  /** Who pays for `orgId`: its parent when parent-billed, else itself. */
  async function payerOf(trx: Kysely<DB>, orgId: string, lock: boolean) {
    const own = await accountStore.ensure(trx, orgId, clock.now(), false);
    if (own.parent_org_id) return accountStore.ensure(trx, own.parent_org_id, clock.now(), lock);
    // Self-paying: the row exists now (ensured above), so no second insert; lock it when asked.
    return lock ? trx.selectFrom('billing_accounts').selectAll().where('org_id', '=', orgId).forUpdate().executeTakeFirstOrThrow() : own;
  }

  /** Cents a prepaid payer can still spend on `kind` (applicable credit minus open reservations of the payer and its children). */
  async function spendable(trx: Kysely<DB>, payerOrgId: string, kind: string): Promise<number> {
    const now = clock.now();
    const grants = await creditStore.list(trx, payerOrgId);
    const children = await trx.selectFrom('billing_accounts').select('org_id').where('parent_org_id', '=', payerOrgId).execute();
    let held = 0;
    for (const o of [payerOrgId, ...children.map((c) => c.org_id)]) held += await ledgerStore.reservedCents(trx, o);
    return available(grants, kind, now) - held;
  }

  /**
   * Writes a reserved row after the balance check, atomically (the payer's account row is locked, so
   * two racing reservations cannot both spend the same balance). With `idempotencyKey`, a second
   * reservation under the key returns the first.
   */
  async function reserveCents(input: {
    orgId: string;
    kind: string;
    unitPriceCents: number;
    ceilingQuantity: number;
    ceilingCents: number;
    fingerprint: string;
    idempotencyKey?: string;
    details?: object;
  }): Promise<Reservation> {
    return db.transaction().execute(async (trx) => {
      if (input.idempotencyKey) {
        const existing = await ledgerStore.byKey(trx, input.orgId, input.idempotencyKey);
        if (existing) {
          return {
            id: existing.id,
            orgId: input.orgId,
            kind: existing.kind,
            unitPriceCents: existing.unit_price_cents,
            ceilingQuantity: existing.quantity,
            ceilingCents: existing.amount_cents,
          };
        }
      }
      const payer = await payerOf(trx, input.orgId, true);
      if (payer.mode === 'prepaid' && input.ceilingCents > 0) {
        const can = await spendable(trx, payer.org_id, input.kind);
        if (can < input.ceilingCents) throw insufficientBalance(input.ceilingCents, can);
      }
      const id = newId('use');
      await ledgerStore.insert(trx, {
        id,
        org_id: input.orgId,
        kind: input.kind,
        quantity: input.ceilingQuantity,
        unit_price_cents: input.unitPriceCents,
        amount_cents: input.ceilingCents,
        status: 'reserved',
        request_fingerprint: input.fingerprint,
        created_at: clock.now(),
        idempotency_key: input.idempotencyKey ?? null,
        details: input.details ? JSON.stringify(input.details) : null,
      });
      return {
        id,
        orgId: input.orgId,
        kind: input.kind,
        unitPriceCents: input.unitPriceCents,
        ceilingQuantity: input.ceilingQuantity,
        ceilingCents: input.ceilingCents,
      };
    });
  }

  /** Draws a settled amount from the payer's credits inside `trx`; records the covered cents on the row. */
  async function cover(trx: Kysely<DB>, orgId: string, ledgerId: string, kind: string, cents: number): Promise<number> {
    const payer = await payerOf(trx, orgId, false);
    const covered = await drawDown(trx, { orgId: payer.org_id, ledgerId, kind, cents, at: clock.now() });
    await ledgerStore.setCovered(trx, orgId, ledgerId, covered);
    return covered;
  }

  return {
    payerOf,
    spendable,
    reserveCents,
    cover,
    unitPrice: (kind: UsageKind, tier: string | null) => unitPriceCents(rates, kind, tier),

    async reserve(input: {
      orgId: string;
      tier: string | null;
      kind: UsageKind;
      ceilingQuantity: number;
      fingerprint: string;
    }): Promise<Reservation> {
      const unit = unitPriceCents(rates, input.kind, input.tier);
      return reserveCents({
        orgId: input.orgId,
        kind: input.kind,
        unitPriceCents: unit,
        ceilingQuantity: input.ceilingQuantity,
        ceilingCents: unit * input.ceilingQuantity,
        fingerprint: input.fingerprint,
      });
    },

    /**
     * Settles at `quantity` units (capped at the ceiling: a reservation never grows), less the contract's
     * usage discount when `discountBps` is given (never more than the ceiling). Returns the cents charged.
     */
    async settle(trx: Kysely<DB>, r: Reservation, quantity: number, options: { discountBps?: number } = {}): Promise<number> {
      const q = Math.min(Math.max(0, Math.trunc(quantity)), r.ceilingQuantity);
      const cents = options.discountBps ? discounted(q * r.unitPriceCents, options.discountBps) : q * r.unitPriceCents;
      const ok = await ledgerStore.finish(trx, r.orgId, r.id, { status: 'settled', quantity: q, amount_cents: cents, at: clock.now() });
      if (!ok) throw new Error(`usage reservation ${r.id} is no longer reserved`);
      await cover(trx, r.orgId, r.id, r.kind, cents);
      return cents;
    },

    /** Releases a reservation: nothing is charged. Never throws (it runs on error paths). */
    async release(r: Pick<Reservation, 'id' | 'orgId'>): Promise<void> {
      await ledgerStore.finish(db, r.orgId, r.id, { status: 'released', quantity: 0, amount_cents: 0, at: clock.now() }).catch(() => false);
    },

    ledger: (orgId: string, kind?: string) => ledgerStore.list(db, orgId, kind ? { kind } : {}),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
