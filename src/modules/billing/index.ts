/**
 * Billing: the usage ledger (reserve a ceiling, settle the real quantity, release on failure), identity
 * licenses, contracts and their scheduled changes, credits and commits with their burn-down, balance
 * checks (402 BILLING_INSUFFICIENT_BALANCE), auto-recharge through a payment provider, and the
 * payment-method portal. Other areas charge through `billing` only:
 *
 *   billing.reserve / settle / release             per-record usage (micro-batch matching)
 *   billing.quoteDelivery / evaluateDeliveryLicenses / reserveDelivery / chargeDelivery / releaseDelivery   deliveries (delivery.ts)
 */
import type { Kysely } from 'kysely';
import type { BillingSettings, Tier } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { createAccountService, type TierPort } from './account.ts';
import { createDeliveryBilling } from './delivery.ts';
import { billingOperations } from './operations.ts';
import { createPortalService } from './portal.ts';
import { httpPaymentProvider, type PaymentProvider } from './payment-provider/client.ts';
import { createRechargeService } from './recharge.ts';
import { createLedgerService } from './service.ts';

export const BILLING_BOUNDARY_JOB = 'billing.boundary';
export const BILLING_RECHARGE_JOB = 'billing.recharge';

export interface BillingModuleDeps {
  db: Kysely<DB>;
  clock: Clock;
  settings: BillingSettings;
  /** The organization's tier (contract) and its change at a billing boundary. */
  tiers: TierPort;
  /** Whether the user is an owner of the organization (auto-recharge). */
  isOwner?: (orgId: string, userId: string) => Promise<boolean>;
  publicUrl?: string;
  provider?: PaymentProvider;
}

export function createBillingModule(deps: BillingModuleDeps) {
  const { db, clock } = deps;
  const ledger = createLedgerService({ db, clock, rates: deps.settings.usageRates });
  const accounts = createAccountService({ db, clock, rates: deps.settings.usageRates, tiers: deps.tiers });
  const deliveries = createDeliveryBilling({ db, clock, ledger, termsOf: accounts.termsOf });
  const provider = deps.provider ?? httpPaymentProvider(deps.settings.paymentProvider);
  const recharge = createRechargeService({ db, clock, accounts, provider, isOwner: deps.isOwner ?? (async () => false) });
  const portal = createPortalService({ db, clock, publicUrl: deps.publicUrl ?? '', accounts, recharge, provider });

  const billing = {
    ...ledger,
    quoteDelivery: deliveries.quote,
    evaluateDeliveryLicenses: deliveries.evaluateLicenses,
    reserveDelivery: deliveries.reserve,
    chargeDelivery: deliveries.charge,
    releaseDelivery: deliveries.release,
  };

  const jobDefinitions = (): JobDefinition[] => [
    { name: BILLING_BOUNDARY_JOB, queue: { retryLimit: 2, retryDelay: 60 }, handle: async () => accounts.applyBoundaries() },
    { name: BILLING_RECHARGE_JOB, queue: { retryLimit: 1, retryDelay: 30 }, handle: async () => recharge.checkAll() },
  ];

  return { billing, accounts, recharge, portal, operations: billingOperations({ accounts, recharge, portal }), jobDefinitions };
}

/** The billing boundary runs hourly, the recharge check every minute (idempotent schedules; every process may register them). */
export async function scheduleBillingJobs(queue: JobQueue): Promise<void> {
  await queue.ensureQueue(BILLING_BOUNDARY_JOB, { retryLimit: 2, retryDelay: 60 });
  await queue.boss.schedule(BILLING_BOUNDARY_JOB, '5 * * * *', {}, { tz: 'UTC' });
  await queue.ensureQueue(BILLING_RECHARGE_JOB, { retryLimit: 1, retryDelay: 30 });
  await queue.boss.schedule(BILLING_RECHARGE_JOB, '* * * * *', {}, { tz: 'UTC' });
}

export type BillingModule = ReturnType<typeof createBillingModule>;
export type BillingService = BillingModule['billing'];
export type { Tier };
export { centsToUsd, unitPriceCents } from './rates.ts';
export { insufficientBalance, type Reservation } from './service.ts';
export type { DeliveryBillingInput, DeliveryCharge, DeliveryQuote, CostEstimate, LicenseEvaluation } from './delivery.ts';
export type { AccountService, TierPort } from './account.ts';
export type { PortalService, PortalView } from './portal.ts';
export { portalPath, PORTAL_TTL_SECONDS } from './portal.ts';
export { LICENSE_MONTHS } from './licenses.ts';
export { DELIVERY_SUBTYPES, defaultTerms, type ContractTerms, type DeliverySubtype } from './terms.ts';
export { httpPaymentProvider, type PaymentProvider } from './payment-provider/client.ts';
export { startDevPaymentProvider, TEST_CARDS, type DevPaymentProvider } from './payment-provider/dev-server.ts';
export { portalPage, portalDone, portalGone } from './portal-views.ts';
