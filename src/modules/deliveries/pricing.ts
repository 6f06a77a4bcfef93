/**
 * The deliveries area's two seams with areas built elsewhere, as small ports (wired in src/wiring.ts):
 *
 * - `DeliveryBilling`: billing's license-aware delivery API (src/modules/billing/delivery.ts): evaluate
 *   licenses, quote, reserve the ceiling, charge once per delivery (inside the transaction that
 *   completes it; licenses and the deferred file-match usage are written there), release.
 * - `QuoteNumbers`: the free, repeatable numbers a quote shows before purchase (the member count and
 *   how many of them are already licensed) are graph-derived, so they pass through the privacy layer.
 *   Paid exports and charges are exact.
 *
 * `deliveryPricing` is the one place a delivery request becomes billing input: the subtype, the
 * destination, the priced fields, the file-match run, and the license evaluation shown in a quote
 * (`live`; `cached` or `unavailable` when the audience is too large to look up live).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import type { BillingService, DeliveryBillingInput, DeliveryQuote, LicenseEvaluation } from '../billing/index.ts';
import type { ResolvedRequest } from './request.ts';
import { quoteStore } from './store.ts';

export type DeliveryBilling = Pick<
  BillingService,
  'quoteDelivery' | 'evaluateDeliveryLicenses' | 'reserveDelivery' | 'chargeDelivery' | 'releaseDelivery'
>;

/** Numbers a quote shows before purchase (`already_licensed_count` null: not evaluated now, nothing to show). */
export interface QuoteFigures {
  billing_count: number;
  already_licensed_count: number | null;
}

/**
 * The figures shown before purchase for the audience's membership `query` (the privacy layer, wired in
 * src/wiring.ts). `ownList`: the audience is one matched segment alone, the customer's own upload,
 * whose counts stay exact.
 */
export type QuoteNumbers = (input: {
  orgId: string;
  query: MembershipQuery;
  ownList: boolean;
  figures: QuoteFigures;
}) => Promise<QuoteFigures>;

/** The exact figures (for tools that price what was already bought). */
export const exactQuoteNumbers: QuoteNumbers = async ({ figures }) => figures;

/** How long a license evaluation of an earlier quote may be reused as `cached`. */
export const CACHED_LICENSE_MS = 24 * 3600_000;

export interface PricingDeps {
  db: Kysely<DB>;
  clock: { now(): Date };
  billing: DeliveryBilling;
  quoteNumbers: QuoteNumbers;
  /** Largest audience whose licenses a quote looks up live (its person keys are read from the warehouse). */
  liveLicenseLimit: number;
  /** The person keys of the request's members (exact). */
  identities: (r: ResolvedRequest) => Promise<bigint[]>;
}

/** The billing input of a delivery of `r`: identity (PII) fields are priced per field; the run's match usage once. */
export function billingInput(orgId: string, r: ResolvedRequest): DeliveryBillingInput {
  return {
    orgId,
    audienceSubtype: r.subtype,
    destination: r.destination,
    fields: r.fields.filter((f) => f.pii).map((f) => f.name),
    ...(r.matched ? { fileMatch: { runId: r.matched.run.runId, matchedCount: r.matched.run.matchCount } } : {}),
  };
}

export function deliveryPricing(deps: PricingDeps) {
  const { db, billing } = deps;

  /** A license evaluation of an earlier quote of the same audience version (already as shown), if recent. */
  async function cachedEvaluation(orgId: string, r: ResolvedRequest): Promise<LicenseEvaluation | null> {
    const since = new Date(deps.clock.now().getTime() - CACHED_LICENSE_MS);
    for (const row of await quoteStore.recentForAudience(db, orgId, r.audience.id, r.audience.version, since)) {
      const l = (
        JSON.parse(row.body) as { license_pricing?: { status: string; evaluated_at: string | null; already_licensed_count: number | null } }
      ).license_pricing;
      if (l && l.status !== 'unavailable' && l.evaluated_at && l.already_licensed_count !== null) {
        return { status: 'cached', alreadyLicensedCount: l.already_licensed_count, evaluatedAt: new Date(l.evaluated_at) };
      }
    }
    return null;
  }

  return {
    /**
     * What a quote (and a delivery's estimate) shows before purchase: the member count and the already
     * licensed count as the privacy layer shows them, priced by billing. Licenses are looked up live
     * when the audience is at most `liveLicenseLimit` members; otherwise an earlier evaluation of the
     * same audience version is reused (`cached`), else none (`unavailable`: the estimate is the maximum).
     * Returns the members' person keys when they were read (the reservation prices them exactly).
     */
    async shown(orgId: string, r: ResolvedRequest): Promise<{ quote: DeliveryQuote; identities: bigint[] | null }> {
      let identities: bigint[] | null = null;
      let live: LicenseEvaluation | null = null;
      let cached: LicenseEvaluation | null = null;
      if (r.memberCount <= deps.liveLicenseLimit) {
        identities = await deps.identities(r);
        live = await billing.evaluateDeliveryLicenses(orgId, identities);
      } else {
        cached = await cachedEvaluation(orgId, r);
      }
      const figures = await deps.quoteNumbers({
        orgId,
        query: r.query,
        ownList: r.ownList,
        figures: { billing_count: r.memberCount, already_licensed_count: live ? live.alreadyLicensedCount : null },
      });
      const license = live ? { ...live, alreadyLicensedCount: figures.already_licensed_count ?? 0 } : cached;
      const quote = await billing.quoteDelivery({
        ...billingInput(orgId, r),
        identityCount: figures.billing_count,
        ...(license ? { license } : {}),
      });
      return { quote, identities };
    },
  };
}

export type DeliveryPricing = ReturnType<typeof deliveryPricing>;
