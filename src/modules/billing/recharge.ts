/**
 * Auto-recharge (spec 3, 4.8, 8): a self-billed prepaid organization's owner sets a threshold and a
 * target. When the active balance is below the threshold, the recharge job charges the payment method
 * up to the target once per crossing (a `payment_attempts` row per crossing key, unique), and grants a
 * paid commit only after the payment succeeds. `payment_status`: none -> pending -> paid | failed |
 * action_required (3-D Secure; the provider's page completes it and the job then grants). A change
 * that must charge first (the balance is already below the new threshold) waits in `pending_change`
 * (`provisioning`) until its payment succeeds, or is `failed`.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AccountService } from './account.ts';
import { parentBilled } from './account.ts';
import { accountStore, type AccountRow } from './accounts-store.ts';
import type { ChargeOutcome, PaymentProvider } from './payment-provider/client.ts';

export const RECHARGE_BOUNDS = { threshold: [500, 4_999_000], target: [1_500, 5_000_000] } as const;

interface Config {
  enabled: boolean;
  threshold_cents: number;
  recharge_to_cents: number;
  request_id: string;
}
interface PendingChange extends Config {
  status: 'provisioning' | 'failed';
  last_error_code: string | null;
  created_at: string;
  updated_at: string;
}
interface State {
  config: Config | null;
  payment_status: 'none' | 'pending' | 'action_required' | 'paid' | 'failed';
  last_payment_attempt_id: string | null;
  invoice_id: string | null;
  intent_id: string | null;
  last_error_code: string | null;
  action_url: string | null;
  pending_change: PendingChange | null;
  updated_at: string | null;
}

const EMPTY: State = {
  config: null,
  payment_status: 'none',
  last_payment_attempt_id: null,
  invoice_id: null,
  intent_id: null,
  last_error_code: null,
  action_url: null,
  pending_change: null,
  updated_at: null,
};
const stateOf = (a: AccountRow): State => (a.auto_recharge ? { ...EMPTY, ...(JSON.parse(a.auto_recharge) as State) } : { ...EMPTY });

export function createRechargeService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  accounts: AccountService;
  provider: PaymentProvider;
  isOwner: (orgId: string, userId: string) => Promise<boolean>;
}) {
  const { db, clock, accounts, provider } = deps;

  function view(a: AccountRow) {
    const s = stateOf(a);
    return {
      billing_account_id: a.billing_account_id,
      auto_recharge: {
        configured: s.config !== null,
        enabled: s.config?.enabled ?? false,
        threshold_cents: s.config?.threshold_cents ?? null,
        recharge_to_cents: s.config?.recharge_to_cents ?? null,
        configuration_request_id: s.config?.request_id ?? null,
        payment_status: s.payment_status,
        last_payment_attempt_id: s.last_payment_attempt_id,
        payment_provider_invoice_id: s.invoice_id,
        payment_provider_payment_intent_id: s.intent_id,
        last_error_code: s.last_error_code,
        updated_at: s.updated_at,
        pending_change: s.pending_change
          ? {
              request_id: s.pending_change.request_id,
              enabled: s.pending_change.enabled,
              threshold_cents: s.pending_change.threshold_cents,
              recharge_to_cents: s.pending_change.recharge_to_cents,
              status: s.pending_change.status,
              last_error_code: s.pending_change.last_error_code,
              created_at: s.pending_change.created_at,
              updated_at: s.pending_change.updated_at,
            }
          : null,
      },
      action_url: s.payment_status === 'action_required' ? s.action_url : null,
    };
  }

  const save = (orgId: string, s: State) =>
    accountStore.update(db, orgId, {
      auto_recharge: JSON.stringify({ ...s, updated_at: clock.now().toISOString() }),
      updated_at: clock.now(),
    });

  /** Records an outcome on the attempt and the state; grants the paid commit once when it succeeded. */
  async function settleAttempt(orgId: string, attemptId: string, outcome: ChargeOutcome): Promise<void> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const attempt = await trx
        .selectFrom('payment_attempts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', attemptId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (attempt.status === 'paid' || attempt.status === 'failed') return;
      const a = await accountStore.ensure(trx, orgId, now, true);
      const s = stateOf(a);
      s.last_payment_attempt_id = attemptId;
      s.intent_id = outcome.intentId;
      s.invoice_id = outcome.status === 'failed' ? s.invoice_id : outcome.invoiceId;
      let grantId: string | null = null;
      if (outcome.status === 'succeeded') {
        grantId = (
          await accounts.grant(
            orgId,
            {
              kind: 'paid_commit',
              amountCents: attempt.amount_cents,
              name: 'Auto-recharge',
              source: `payment_attempt:${attemptId}`,
              priority: 100,
            },
            trx,
          )
        ).id;
        s.payment_status = 'paid';
        s.last_error_code = null;
        s.action_url = null;
        if (s.pending_change && s.pending_change.request_id === attempt.crossing_key.replace(/^cfg:/, '')) {
          const p = s.pending_change;
          s.config = {
            enabled: p.enabled,
            threshold_cents: p.threshold_cents,
            recharge_to_cents: p.recharge_to_cents,
            request_id: p.request_id,
          };
          s.pending_change = null;
        }
      } else if (outcome.status === 'requires_action') {
        s.payment_status = 'action_required';
        s.action_url = outcome.actionUrl || null;
      } else {
        s.payment_status = 'failed';
        s.last_error_code = outcome.errorCode;
        s.action_url = null;
        if (s.pending_change)
          s.pending_change = { ...s.pending_change, status: 'failed', last_error_code: outcome.errorCode, updated_at: now.toISOString() };
      }
      const status = outcome.status === 'succeeded' ? 'paid' : outcome.status === 'requires_action' ? 'action_required' : 'failed';
      await trx
        .updateTable('payment_attempts')
        .set({
          status,
          provider_intent_id: outcome.intentId,
          provider_invoice_id: outcome.status === 'failed' ? null : outcome.invoiceId,
          action_url: outcome.status === 'requires_action' ? outcome.actionUrl : null,
          error_code: outcome.status === 'failed' ? outcome.errorCode : null,
          grant_id: grantId,
          updated_at: now,
        })
        .where('id', '=', attemptId)
        .execute();
      await trx
        .updateTable('billing_accounts')
        .set({
          auto_recharge: JSON.stringify({ ...s, updated_at: now.toISOString() }),
          updated_at: now,
          ...(outcome.status === 'succeeded' ? { recharge_epoch: a.recharge_epoch + 1 } : {}),
        })
        .where('org_id', '=', orgId)
        .execute();
    });
  }

  /** Charges `amount` once for `crossingKey` (unique per organization); false when that crossing was charged before. */
  async function attempt(orgId: string, crossingKey: string, amountCents: number): Promise<boolean> {
    const a = await accounts.account(orgId);
    if (!a.payment_method_id) return false;
    const now = clock.now();
    const id = newId('pay');
    const inserted = await db
      .insertInto('payment_attempts')
      .values({
        id,
        org_id: orgId,
        crossing_key: crossingKey,
        amount_cents: amountCents,
        status: 'pending',
        provider_intent_id: null,
        provider_invoice_id: null,
        action_url: null,
        error_code: null,
        grant_id: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['org_id', 'crossing_key']).doNothing())
      .returning('id')
      .execute();
    if (inserted.length !== 1) return false;
    const s = stateOf(await accounts.account(orgId));
    await save(orgId, { ...s, payment_status: 'pending', last_payment_attempt_id: id });
    const outcome = await provider.charge({
      amountCents,
      paymentMethodId: a.payment_method_id,
      idempotencyKey: id,
      description: 'Auto-recharge',
    });
    await settleAttempt(orgId, id, outcome);
    return true;
  }

  return {
    async get(orgId: string) {
      return view(await accounts.account(orgId));
    },

    async put(
      caller: { orgId: string; userId: string },
      input: { request_id: string; enabled: boolean; threshold_cents: number; recharge_to_cents: number },
    ) {
      const a = await accounts.account(caller.orgId);
      if (a.parent_org_id) throw parentBilled();
      if (a.mode !== 'prepaid')
        throw new DomainError('PREPAID_BILLING_REQUIRED', 'Auto-recharge applies to prepaid organizations; this organization is invoiced.');
      if (!(await deps.isOwner(caller.orgId, caller.userId)))
        throw new DomainError('BILLING_OWNER_REQUIRED', 'Only owners of the organization may change auto-recharge.');
      if (input.recharge_to_cents <= input.threshold_cents) {
        throw new DomainError('INVALID_REQUEST', 'recharge_to_cents must be greater than threshold_cents.', {
          issues: [
            { path: '$.recharge_to_cents', code: 'INVALID_VALUE', message: 'Must be greater than threshold_cents.', suggestions: [] },
          ],
        });
      }
      const s = stateOf(a);
      const same = (c: Config | null) =>
        c !== null &&
        c.enabled === input.enabled &&
        c.threshold_cents === input.threshold_cents &&
        c.recharge_to_cents === input.recharge_to_cents;
      for (const c of [s.config, s.pending_change]) {
        if (c?.request_id === input.request_id) {
          if (!same(c))
            throw new DomainError('REQUEST_ID_CONFLICT', 'This request_id was used for different auto-recharge settings.', {
              nextStep: 'Use a new request_id for new settings.',
            });
          return view(a);
        }
      }
      if (input.enabled && !a.payment_method_id)
        throw new DomainError('PAYMENT_METHOD_REQUIRED', 'Add a payment method before enabling auto-recharge.', {
          nextStep: 'Open POST /v1/account/payment-method/portal and add a card.',
        });
      if (input.enabled && !a.billing_address)
        throw new DomainError('BILLING_ADDRESS_REQUIRED', 'Add a billing address before enabling auto-recharge.', {
          nextStep: 'Open POST /v1/account/payment-method/portal and add the billing address.',
        });
      const config: Config = {
        enabled: input.enabled,
        threshold_cents: input.threshold_cents,
        recharge_to_cents: input.recharge_to_cents,
        request_id: input.request_id,
      };
      const balance = await accounts.balanceCents(caller.orgId);
      const now = clock.now().toISOString();
      if (input.enabled && balance < input.threshold_cents) {
        // Payment-gated: the settings apply once the first recharge is paid.
        await save(caller.orgId, {
          ...s,
          pending_change: { ...config, status: 'provisioning', last_error_code: null, created_at: now, updated_at: now },
        });
        await attempt(caller.orgId, `cfg:${input.request_id}`, input.recharge_to_cents - balance);
      } else {
        await save(caller.orgId, { ...s, config, pending_change: null });
        await accountStore.update(db, caller.orgId, { recharge_epoch: a.recharge_epoch + 1 });
      }
      return view(await accounts.account(caller.orgId));
    },

    /**
     * The recharge job for one organization: completes payments waiting on the cardholder, then
     * charges up to the target when the balance is below the threshold (once per crossing).
     */
    async check(orgId: string): Promise<'none' | 'charged' | 'completed'> {
      const waiting = await db
        .selectFrom('payment_attempts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('status', 'in', ['pending', 'action_required'])
        .execute();
      let completed = false;
      const pm = (await accounts.account(orgId)).payment_method_id;
      for (const w of waiting) {
        // A charge cut off by an outage is sent again under the same idempotency key (never charged twice).
        if (!w.provider_intent_id && !pm) continue;
        const outcome = w.provider_intent_id
          ? await provider.retrieve(w.provider_intent_id)
          : await provider.charge({
              amountCents: w.amount_cents,
              paymentMethodId: pm!,
              idempotencyKey: w.id,
              description: 'Auto-recharge',
            });
        if (outcome.status !== 'requires_action') {
          await settleAttempt(orgId, w.id, outcome);
          completed = true;
        }
      }
      const a = await accounts.account(orgId);
      const s = stateOf(a);
      if (!s.config?.enabled || a.mode !== 'prepaid' || a.parent_org_id || waiting.length > 0) return completed ? 'completed' : 'none';
      const balance = await accounts.balanceCents(orgId);
      if (balance >= s.config.threshold_cents) return completed ? 'completed' : 'none';
      return (await attempt(orgId, `epoch:${a.recharge_epoch}`, s.config.recharge_to_cents - balance)) ? 'charged' : 'none';
    },

    async checkAll(): Promise<number> {
      let n = 0;
      for (const a of await accountStore.withAutoRecharge(db)) {
        try {
          if ((await this.check(a.org_id)) !== 'none') n += 1;
        } catch {
          // A provider outage leaves the attempt pending; the next run retries with the same idempotency key.
        }
      }
      return n;
    },

    history: (orgId: string) =>
      db
        .selectFrom('payment_attempts')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(50)
        .execute(),
  };
}

export type RechargeService = ReturnType<typeof createRechargeService>;
