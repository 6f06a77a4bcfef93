/**
 * Contract terms (spec 2): usage rates in integer cents per record by match kind, audience delivery
 * subtype, destination and enrichment field, a usage discount in basis points and a commitment. Each
 * tier has default terms; the micro-batch rate comes from the configured rate table (USAGE_RATES).
 */
import type { RateTable, Tier } from '../../config/index.ts';

export const DELIVERY_SUBTYPES = ['filter', 'matched', 'similarity', 'propensity'] as const;
export type DeliverySubtype = (typeof DELIVERY_SUBTYPES)[number];
export const CADENCES = ['monthly', 'annual'] as const;
export type Cadence = (typeof CADENCES)[number];

export interface UsageRates {
  match: { microbatch: number; file: number };
  audience_delivery: Record<DeliverySubtype, number>;
  destination: Record<string, number>;
  enrichment_field: Record<string, number>;
}

export interface ContractTerms {
  tier: Tier;
  cadence: Cadence;
  commitment_term_months: 0 | 12 | 24 | 36;
  commitment_amount_cents: number;
  usage_discount_bps: number;
  usage_rates: UsageRates;
}

/** Per-record cents of each tier (cheaper per record on bigger contracts). */
const TIER_RATES: Record<Tier, { file: number; delivery: Record<DeliverySubtype, number>; sftp: number; s3: number; field: number }> = {
  paygo: { file: 2, delivery: { filter: 10, matched: 8, similarity: 12, propensity: 12 }, sftp: 1, s3: 1, field: 1 },
  pilot: { file: 2, delivery: { filter: 8, matched: 6, similarity: 10, propensity: 10 }, sftp: 1, s3: 1, field: 1 },
  growth: { file: 1, delivery: { filter: 6, matched: 5, similarity: 8, propensity: 8 }, sftp: 1, s3: 1, field: 1 },
  scale: { file: 1, delivery: { filter: 4, matched: 3, similarity: 6, propensity: 6 }, sftp: 0, s3: 0, field: 1 },
  enterprise: { file: 1, delivery: { filter: 3, matched: 2, similarity: 5, propensity: 5 }, sftp: 0, s3: 0, field: 0 },
};

const COMMITMENT: Record<Tier, { months: 0 | 12; cents: number; discountBps: number }> = {
  paygo: { months: 0, cents: 0, discountBps: 0 },
  pilot: { months: 0, cents: 0, discountBps: 0 },
  growth: { months: 12, cents: 2_400_000, discountBps: 500 },
  scale: { months: 12, cents: 12_000_000, discountBps: 1000 },
  enterprise: { months: 12, cents: 60_000_000, discountBps: 1500 },
};

/** The default terms of a tier. Enrichment fields without an entry cost `enrichment_field.default`. */
export function defaultTerms(rates: RateTable, tier: Tier, cadence: Cadence = 'monthly'): ContractTerms {
  const r = TIER_RATES[tier];
  const c = COMMITMENT[tier];
  return {
    tier,
    cadence,
    commitment_term_months: c.months,
    commitment_amount_cents: c.cents,
    usage_discount_bps: c.discountBps,
    usage_rates: {
      match: { microbatch: rates['match.microbatch'][tier], file: r.file },
      audience_delivery: { ...r.delivery },
      destination: { download: 0, sftp: r.sftp, s3: r.s3 },
      enrichment_field: { default: r.field },
    },
  };
}

/** Applies the discount to an amount of cents (rounded half up, never below zero). */
export const discounted = (cents: number, bps: number): number => Math.max(0, Math.round((cents * (10_000 - bps)) / 10_000));

/** When the next billing boundary after `from` falls: the first instant of the next month (or year), UTC. */
export function nextBoundary(from: Date, cadence: Cadence): Date {
  return cadence === 'annual'
    ? new Date(Date.UTC(from.getUTCFullYear() + 1, 0, 1))
    : new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
}
