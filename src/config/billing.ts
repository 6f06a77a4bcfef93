/**
 * The billing section: the usage rate table in integer cents per unit, by usage kind and tier
 * (ARCHITECTURE.md: priced from a per-tier table until contract terms replace it; documented in
 * docs/decisions/005-match-ids-and-billing.md). USAGE_RATES='{"match.microbatch":{"pilot":4}}' overrides
 * single entries.
 */
import { ConfigError, jsonObjectSetting } from './settings.ts';
import { isTier, type Tier } from './tiers.ts';

/**
 * `match.microbatch`: cents per MATCHED record of POST /v1/match (spec 8: unmatched rows are free).
 * Deliveries and file-match runs are priced by contract terms (src/modules/billing/terms.ts,
 * docs/decisions/030-billing-ledger-credits-licenses.md), not by this table.
 */
export const USAGE_KINDS = ['match.microbatch'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

export type RateTable = Record<UsageKind, Record<Tier, number>>;

/** Cheaper per record on bigger contracts, as usual for volume tiers. */
export const DEFAULT_RATE_TABLE: RateTable = {
  'match.microbatch': { paygo: 5, pilot: 4, growth: 3, scale: 2, enterprise: 1 },
};

export interface BillingSettings {
  usageRates: RateTable;
  /** The payment provider's API (PAYMENT_PROVIDER_URL, PAYMENT_PROVIDER_KEY); `ads billing provider` runs the built-in one. */
  paymentProvider: { url: string | null; secretKey: string | null };
  /**
   * LICENSE_LOOKUP_MAX_IDENTITIES: the largest audience whose licenses a delivery quote looks up live
   * (default 2,000,000); a larger one reuses a recent evaluation (`cached`) or shows none (`unavailable`).
   */
  licenseLookupMaxIdentities: number;
}

export function billingSettings(env: NodeJS.ProcessEnv): BillingSettings {
  const table = Object.fromEntries(Object.entries(DEFAULT_RATE_TABLE).map(([k, v]) => [k, { ...v }])) as RateTable;
  const parsed = jsonObjectSetting(env, 'USAGE_RATES', '{"match.microbatch":{"pilot":4}}');
  for (const [kind, rates] of Object.entries(parsed ?? {})) {
    if (!(USAGE_KINDS as readonly string[]).includes(kind)) throw new ConfigError(`USAGE_RATES: unknown usage kind "${kind}"`);
    for (const [tier, cents] of Object.entries((rates ?? {}) as Record<string, unknown>)) {
      if (!isTier(tier)) throw new ConfigError(`USAGE_RATES.${kind}: unknown tier "${tier}"`);
      if (!Number.isSafeInteger(cents) || (cents as number) < 0)
        throw new ConfigError(`USAGE_RATES.${kind}.${tier} must be a non-negative integer of cents`);
      table[kind as UsageKind][tier] = cents as number;
    }
  }
  const url = env.PAYMENT_PROVIDER_URL?.trim() || null;
  if (url && !/^https?:\/\//.test(url)) throw new ConfigError('PAYMENT_PROVIDER_URL must be an http(s) URL');
  const lookupMax = env.LICENSE_LOOKUP_MAX_IDENTITIES?.trim();
  const licenseLookupMaxIdentities = lookupMax ? Number(lookupMax) : 2_000_000;
  if (!Number.isSafeInteger(licenseLookupMaxIdentities) || licenseLookupMaxIdentities < 0)
    throw new ConfigError('LICENSE_LOOKUP_MAX_IDENTITIES must be a non-negative integer');
  return {
    usageRates: table,
    paymentProvider: { url: url?.replace(/\/+$/, '') ?? null, secretKey: env.PAYMENT_PROVIDER_KEY?.trim() || null },
    licenseLookupMaxIdentities,
  };
}
