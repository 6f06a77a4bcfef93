/**
 * The account side of billing (spec 4.8): billing setup (mode, parent), credits and commits, usage
 * summaries, the contract and its scheduled changes applied at the billing boundary, and the ledger
 * reconciliation. Operators grant credits and set up organizations through the CLI.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../lib/ids.ts';
import { isTier, type RateTable, type Tier } from '../../config/index.ts';
import { accountStore, asCadence, BILLING_MODES, type AccountRow, type BillingMode } from './accounts-store.ts';
import { creditStore, isActive, type GrantKind, type GrantRow } from './credits.ts';
import { centsToUsd } from './rates.ts';
import { ledgerStore } from './store.ts';
import { defaultTerms, nextBoundary, type Cadence, type ContractTerms } from './terms.ts';

export interface TierPort {
  /** With `conn`: read inside that transaction (an embedded store has one connection). */
  tierOf(orgId: string, conn?: Kysely<DB>): Promise<Tier | null>;
  setTier(orgId: string, tier: Tier): Promise<void>;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function parentBilled(): DomainError {
  return new DomainError(
    'PARENT_BILLED_ORGANIZATION',
    'This organization is billed through its parent organization; its contract and pooled balances are managed there.',
    {
      nextStep: "Ask the parent (agency) organization's owners to make this change.",
    },
  );
}

function creditItem(g: GrantRow, now: Date) {
  return {
    id: g.id,
    name: g.name,
    product_id: g.product_id,
    product_name: g.product_name,
    kind: g.kind as GrantKind,
    remaining_cents: g.remaining_cents,
    applicable_product_ids: JSON.parse(g.applicable_product_ids) as string[],
    applicable_product_tags: JSON.parse(g.applicable_product_tags) as string[],
    source: g.source,
    access_schedule: [{ amount_cents: g.amount_cents, starting_at: iso(g.starting_at)!, ending_before: iso(g.ending_before)! }],
    active: isActive(g, now) && g.remaining_cents > 0,
    priority: g.priority,
  };
}

export function createAccountService(deps: { db: Kysely<DB>; clock: Clock; rates: RateTable; tiers: TierPort }) {
  const { db, clock, rates, tiers } = deps;
  const account = (orgId: string) => accountStore.ensure(db, orgId, clock.now());

  /** The contract terms that price the organization's usage (its parent's when parent-billed); `conn` to read inside a transaction. */
  async function termsOf(orgId: string, conn: Kysely<DB> = db): Promise<ContractTerms> {
    const a = await accountStore.ensure(conn, orgId, clock.now());
    const payer = a.parent_org_id ? await accountStore.ensure(conn, a.parent_org_id, clock.now()) : a;
    return defaultTerms(rates, (await tiers.tierOf(payer.org_id, conn)) ?? 'paygo', asCadence(payer.cadence));
  }

  function changeView(c: {
    kind: string;
    request_id: string;
    status: string;
    effective_at: Date | string;
    previous_contract_end_at: Date | string | null;
    terms: string;
    error_code: string | null;
    created_at: Date | string;
    updated_at: Date | string;
  }) {
    return {
      kind: c.kind as 'replacement' | 'renewal' | 'cancellation',
      request_id: c.request_id,
      status: c.status as 'provisioning' | 'scheduled' | 'failed' | 'applied',
      effective_at: iso(c.effective_at)!,
      previous_contract_end_at: iso(c.previous_contract_end_at),
      successor_contract_id: null,
      terms: JSON.parse(c.terms) as ContractTerms,
      error_code: c.error_code,
      created_at: iso(c.created_at)!,
      updated_at: iso(c.updated_at)!,
    };
  }

  return {
    account,
    termsOf,

    async setup(orgId: string, input: { mode?: string; parentOrgId?: string | null; cadence?: string }): Promise<AccountRow> {
      if (input.mode && !(BILLING_MODES as readonly string[]).includes(input.mode))
        throw new DomainError('INVALID_REQUEST', `Billing mode must be one of ${BILLING_MODES.join(', ')}.`);
      if (input.parentOrgId === orgId) throw new DomainError('INVALID_REQUEST', 'An organization cannot be its own parent.');
      await account(orgId);
      if (input.parentOrgId) {
        const parent = await account(input.parentOrgId);
        if (parent.parent_org_id) throw new DomainError('INVALID_REQUEST', 'The parent organization is itself billed through a parent.');
      }
      await accountStore.update(db, orgId, {
        ...(input.mode ? { mode: input.mode as BillingMode } : {}),
        ...(input.parentOrgId !== undefined ? { parent_org_id: input.parentOrgId } : {}),
        ...(input.cadence ? { cadence: asCadence(input.cadence) } : {}),
        updated_at: clock.now(),
      });
      return account(orgId);
    },

    async grant(
      orgId: string,
      input: {
        kind: GrantKind;
        amountCents: number;
        name?: string;
        priority?: number;
        productIds?: string[];
        productTags?: string[];
        startingAt?: Date;
        endingBefore?: Date;
        source?: string | null;
      },
      conn?: Kysely<DB>,
    ): Promise<GrantRow> {
      if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0)
        throw new DomainError('INVALID_REQUEST', 'The amount must be a positive whole number of cents.');
      if (!conn) await account(orgId);
      const now = clock.now();
      const starting = input.startingAt ?? now;
      const ending = input.endingBefore ?? new Date(Date.UTC(starting.getUTCFullYear() + 1, starting.getUTCMonth(), starting.getUTCDate()));
      if (ending.getTime() <= starting.getTime()) throw new DomainError('INVALID_REQUEST', 'ending_before must be after starting_at.');
      const paid = input.kind === 'paid_commit';
      const row: GrantRow = {
        id: newId(paid ? 'cmt' : 'crd'),
        org_id: orgId,
        kind: input.kind,
        name: input.name ?? (paid ? 'Prepaid commit' : 'Promotional credit'),
        product_id: paid ? 'prepaid_commit' : 'promotional_credit',
        product_name: paid ? 'Prepaid commit' : 'Promotional credit',
        priority: input.priority ?? 100,
        applicable_product_ids: JSON.stringify(input.productIds ?? []),
        applicable_product_tags: JSON.stringify(input.productTags ?? []),
        source: input.source ?? null,
        amount_cents: input.amountCents,
        remaining_cents: input.amountCents,
        starting_at: starting,
        ending_before: ending,
        created_at: now,
      };
      await creditStore.insert(conn ?? db, row);
      return row;
    },

    /** GET /v1/account/credits. Parent-billed children cannot inspect the pooled balances. */
    async credits(orgId: string) {
      const a = await account(orgId);
      if (a.parent_org_id) throw parentBilled();
      const now = clock.now();
      const balances = (await creditStore.list(db, orgId)).map((g) => creditItem(g, now));
      const upcoming = balances
        .filter((b) => b.active)
        .map((b) => b.access_schedule[0]!.ending_before)
        .sort();
      return { billing_account_id: a.billing_account_id, balances, next_expiry_at: upcoming[0] ?? null };
    },

    /** Sum of active applicable balances, in cents (CLI, auto-recharge). */
    async balanceCents(orgId: string): Promise<number> {
      const now = clock.now();
      return (await creditStore.list(db, orgId)).filter((g) => isActive(g, now)).reduce((s, g) => s + g.remaining_cents, 0);
    },

    /** GET /v1/account/usage: settled usage by kind, in a period (default: the current billing period). */
    async usage(orgId: string, range: { from?: Date; to?: Date }) {
      const a = await account(orgId);
      const from = range.from ?? new Date(a.period_start_at);
      const to = range.to ?? new Date(a.boundary_at);
      const rows = (await ledgerStore.list(db, orgId, { from, to })).filter((r) => r.status === 'settled');
      const byKind = new Map<string, { kind: string; events: number; quantity: number; amount_cents: number; covered_cents: number }>();
      for (const r of rows) {
        const k = byKind.get(r.kind) ?? { kind: r.kind, events: 0, quantity: 0, amount_cents: 0, covered_cents: 0 };
        k.events += 1;
        k.quantity += r.quantity;
        k.amount_cents += r.amount_cents;
        k.covered_cents += r.covered_cents;
        byKind.set(r.kind, k);
      }
      const kinds = [...byKind.values()]
        .sort((x, y) => x.kind.localeCompare(y.kind))
        .map((k) => ({ ...k, amount: centsToUsd(k.amount_cents), invoiced_cents: k.amount_cents - k.covered_cents }));
      const total = kinds.reduce((s, k) => s + k.amount_cents, 0);
      const covered = kinds.reduce((s, k) => s + k.covered_cents, 0);
      return {
        billing_account_id: a.billing_account_id,
        period_start: from.toISOString(),
        period_end: to.toISOString(),
        usage: kinds,
        total_cents: total,
        total_amount: centsToUsd(total),
        covered_cents: covered,
        invoiced_cents: total - covered,
      };
    },

    /** GET /v1/account/contract: the current terms, the billing period and a scheduled change. */
    async contract(orgId: string) {
      const a = await account(orgId);
      const pending = await db
        .selectFrom('contract_changes')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('status', '=', 'scheduled')
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      return {
        billing_account_id: a.billing_account_id,
        billing_mode: a.mode as BillingMode,
        parent_billed: a.parent_org_id !== null,
        terms: await termsOf(orgId),
        current_period_start: iso(a.period_start_at)!,
        next_billing_boundary_at: iso(a.boundary_at)!,
        scheduled_change: pending ? changeView(pending) : null,
      };
    },

    /** POST /v1/account/contract/change: schedules the change at the next boundary; idempotent on request_id. */
    async changeContract(orgId: string, input: { request_id: string; tier: 'pilot' | 'growth' | 'scale'; cadence?: Cadence }) {
      const a = await account(orgId);
      if (a.parent_org_id) throw parentBilled();
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([input.tier, input.cadence ?? null]))
        .digest('hex');
      const existing = await db
        .selectFrom('contract_changes')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('request_id', '=', input.request_id)
        .executeTakeFirst();
      if (existing) {
        if (existing.request_fingerprint !== fingerprint)
          throw new DomainError('REQUEST_ID_CONFLICT', 'This request_id was used for a different contract change.', {
            nextStep: 'Use a new request_id for a new change.',
          });
        return { status: 'scheduled' as const, effective_at: iso(existing.effective_at)!, scheduled_change: changeView(existing) };
      }
      const current = await tiers.tierOf(orgId);
      if (current === 'enterprise') {
        throw new DomainError('ENTERPRISE_CONTRACT_MANAGED', 'Enterprise terms are custom and managed by platform admins.', {
          nextStep: 'Contact your account manager to change an enterprise contract.',
        });
      }
      const now = clock.now();
      const cadence = input.cadence ?? asCadence(a.cadence);
      const effective = new Date(a.boundary_at);
      const terms = defaultTerms(rates, input.tier, cadence);
      const row = {
        id: newId('chg'),
        org_id: orgId,
        request_id: input.request_id,
        request_fingerprint: fingerprint,
        kind: 'replacement',
        status: 'scheduled',
        tier: input.tier,
        cadence,
        effective_at: effective,
        previous_contract_end_at: effective,
        terms: JSON.stringify(terms),
        error_code: null,
        applied_at: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        // One scheduled change at a time: a newer request replaces the pending one.
        await trx
          .updateTable('contract_changes')
          .set({ status: 'failed', error_code: 'SUPERSEDED', updated_at: now })
          .where('org_id', '=', orgId)
          .where('status', '=', 'scheduled')
          .execute();
        await trx.insertInto('contract_changes').values(row).execute();
      });
      return { status: 'scheduled' as const, effective_at: effective.toISOString(), scheduled_change: changeView(row) };
    },

    /**
     * The billing boundary (a job, and `ads billing advance`): for every account whose boundary is due,
     * applies its scheduled change (the tier, so rate limit and compute budget follow) and opens the
     * next period. Returns the organizations whose contract changed.
     */
    async applyBoundaries(): Promise<{ org_id: string; tier: string }[]> {
      const now = clock.now();
      const changed: { org_id: string; tier: string }[] = [];
      for (const a of await accountStore.due(db, now)) {
        const change = await db
          .selectFrom('contract_changes')
          .selectAll()
          .where('org_id', '=', a.org_id)
          .where('status', '=', 'scheduled')
          .where('effective_at', '<=', now)
          .orderBy('created_at', 'desc')
          .executeTakeFirst();
        let cadence = asCadence(a.cadence);
        if (change && isTier(change.tier)) {
          await tiers.setTier(a.org_id, change.tier);
          cadence = asCadence(change.cadence);
          await db
            .updateTable('contract_changes')
            .set({ status: 'applied', applied_at: now, updated_at: now })
            .where('id', '=', change.id)
            .execute();
          changed.push({ org_id: a.org_id, tier: change.tier });
        }
        let start = new Date(a.boundary_at);
        let boundary = nextBoundary(start, cadence);
        while (boundary.getTime() <= now.getTime()) {
          start = boundary;
          boundary = nextBoundary(start, cadence);
        }
        await accountStore.update(db, a.org_id, { cadence, period_start_at: start, boundary_at: boundary, updated_at: now });
      }
      return changed;
    },

    /** Development: makes the organization's billing boundary due now (`ads billing advance --org`). */
    async forceBoundary(orgId: string): Promise<void> {
      await accountStore.update(db, orgId, { boundary_at: clock.now(), updated_at: clock.now() });
    },

    /**
     * Reconciliation: every grant's amount minus its draws equals its remaining balance, and every
     * settled ledger entry's covered cents equal its draws. Returns the differences (empty = reconciled).
     */
    async reconcile(orgId: string) {
      const grants = await creditStore.list(db, orgId);
      const draws = await creditStore.draws(db, orgId);
      const drawnByGrant = new Map<string, number>();
      const drawnByLedger = new Map<string, number>();
      for (const d of draws) {
        drawnByGrant.set(d.grant_id, (drawnByGrant.get(d.grant_id) ?? 0) + d.amount_cents);
        drawnByLedger.set(d.ledger_id, (drawnByLedger.get(d.ledger_id) ?? 0) + d.amount_cents);
      }
      const problems: string[] = [];
      for (const g of grants) {
        const drawn = drawnByGrant.get(g.id) ?? 0;
        if (g.amount_cents - drawn !== g.remaining_cents)
          problems.push(`grant ${g.id}: ${g.amount_cents} - ${drawn} drawn != ${g.remaining_cents} remaining`);
      }
      const children = await db.selectFrom('billing_accounts').select('org_id').where('parent_org_id', '=', orgId).execute();
      let charged = 0;
      let covered = 0;
      for (const o of [orgId, ...children.map((c) => c.org_id)]) {
        for (const r of await ledgerStore.list(db, o)) {
          if (r.status !== 'settled') continue;
          charged += r.amount_cents;
          covered += r.covered_cents;
          if ((drawnByLedger.get(r.id) ?? 0) !== r.covered_cents)
            problems.push(`ledger ${r.id}: covered ${r.covered_cents} != drawn ${drawnByLedger.get(r.id) ?? 0}`);
        }
      }
      const granted = grants.reduce((s, g) => s + g.amount_cents, 0);
      const remaining = grants.reduce((s, g) => s + g.remaining_cents, 0);
      return {
        org_id: orgId,
        granted_cents: granted,
        remaining_cents: remaining,
        drawn_cents: granted - remaining,
        charged_cents: charged,
        covered_cents: covered,
        invoiced_cents: charged - covered,
        problems,
      };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
