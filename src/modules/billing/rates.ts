/**
 * Prices from the configured rate table (src/config/billing.ts) until contract terms replace it.
 * Money is integer cents inside; the API shows USD numbers.
 */
import type { RateTable, UsageKind } from '../../config/index.ts';

/** Integer cents per unit of `kind` for `tier`; an unknown tier pays the pay-as-you-go rate (never free by accident). */
export function unitPriceCents(table: RateTable, kind: UsageKind, tier: string | null | undefined): number {
  const rates = table[kind];
  return (rates as Record<string, number>)[tier ?? ''] ?? rates.paygo;
}

/** Cents -> the USD number the API shows (spec: money is a USD number on the wire). */
export const centsToUsd = (cents: number): number => Math.round(cents) / 100;
