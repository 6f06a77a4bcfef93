/**
 * Usage rate table (ARCHITECTURE.md: "Usage is priced from a per-tier rate table in integer cents,
 * configured and documented"), until contract terms replace it. Documented in
 * docs/decisions/005-match-ids-and-billing.md; override per tier with USAGE_RATES (src/config.ts).
 *
 * Only `match.microbatch` exists so far: cents per MATCHED record of POST /v1/match (spec 8:
 * unmatched rows are free). Cheaper per record on bigger contracts, as usual for volume tiers.
 */
import type { Tier } from '../../config.ts';

export const USAGE_KINDS = ['match.microbatch'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

export type RateTable = Record<UsageKind, Record<Tier, number>>;

export const DEFAULT_RATE_TABLE: RateTable = {
  'match.microbatch': { paygo: 5, pilot: 4, growth: 3, scale: 2, enterprise: 1 },
};

/** Integer cents per unit of `kind` for `tier`; an unknown tier pays the pay-as-you-go rate (never free by accident). */
export function unitPriceCents(table: RateTable, kind: UsageKind, tier: string | null | undefined): number {
  const rates = table[kind];
  return (rates as Record<string, number>)[tier ?? ''] ?? rates.paygo;
}

/** Cents -> the USD number the API shows (spec: money is a USD number on the wire). */
export const centsToUsd = (cents: number): number => Math.round(cents) / 100;
