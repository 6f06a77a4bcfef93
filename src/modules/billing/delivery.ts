/**
 * Billing of deliveries (the port the deliveries area charges through):
 *
 *   const q = await billing.deliveries.quote({ orgId, audienceSubtype, destination, fields, identities });
 *   // or: const e = await billing.deliveries.evaluateLicenses(orgId, identities), shown through the
 *   //     privacy layer, then quote({ ..., identityCount, license: { ...e, alreadyLicensedCount: shown } })
 *   const r = await billing.deliveries.reserve({ ...input, idempotencyKey });   // 402 when a prepaid balance cannot cover the ceiling
 *   await db.transaction().execute((trx) => billing.deliveries.charge(trx, { ...input, idempotencyKey }));
 *   // or, when the delivery failed: await billing.deliveries.release(r);
 *
 * A delivery bills per distinct identity not actively licensed to the organization (licenses.ts):
 * audience delivery rate of the subtype + destination rate + enrichment field rates, less the contract
 * discount. A file-match run adds its one aggregate match usage (`match.file` x matched records) on its
 * first charged delivery only. One idempotency key charges once: a retry, a duplicate or a racing
 * second call returns the first charge.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { licenseStore, distinctKeys } from './licenses.ts';
import { centsToUsd } from './rates.ts';
import type { LedgerService, Reservation } from './service.ts';
import { ledgerStore } from './store.ts';
import { discounted, type ContractTerms, type DeliverySubtype } from './terms.ts';

export interface DeliveryBillingInput {
  orgId: string;
  audienceSubtype: DeliverySubtype;
  /** `download`, `sftp`, `s3`, ... (a destination without a rate is free). */
  destination: string;
  /** Enrichment fields delivered (each priced by `enrichment_field`, else its `default`). */
  fields: string[];
  /** Person keys of the delivered identities; absent: licenses are not looked up (`unavailable`). */
  identities?: Iterable<number | bigint | string>;
  /** The number of identities when they are not listed. */
  identityCount?: number;
  /** A file-match run in the delivery: its aggregate match usage is billed on its first delivery. */
  fileMatch?: { runId: string; matchedCount: number };
  /**
   * A license evaluation made by the caller (`evaluateLicenses`, then shown through the privacy layer):
   * `live` (counted now) or `cached` (a previous count reused, dollars recomputed). Takes precedence
   * over `identities`.
   */
  license?: LicenseEvaluation;
  /**
   * The estimate shown for the delivery, in cents: a ceiling its reservation and charge never exceed
   * (the estimate prices the count the privacy layer shows, which may be below the exact one).
   */
  ceilingCents?: number;
}

export interface LicenseEvaluation {
  status: 'live' | 'cached';
  alreadyLicensedCount: number;
  evaluatedAt: Date;
}

export interface CostEstimate {
  base_cost: number;
  match_cost: number;
  field_cost: number;
  destination_cost: number;
  total_cost: number;
  unit_price: number;
  billing_count: number;
}

export interface DeliveryQuote {
  cost_estimate: CostEstimate;
  max_cost_estimate: CostEstimate;
  license_pricing: { status: 'live' | 'cached' | 'unavailable'; evaluated_at: string | null; already_licensed_count: number | null };
  cents: { estimate: number; max: number };
  identity_count: number;
  billable_count: number;
}

export interface DeliveryCharge {
  /** False when the key was charged before (this call charged nothing). */
  charged: boolean;
  ledger_id: string;
  cents: number;
  amount: number;
  billable_count: number;
  already_licensed_count: number;
  match_cents: number;
}

interface Unit {
  base: number;
  destination: number;
  field: number;
}

function unitOf(terms: ContractTerms, input: DeliveryBillingInput): Unit {
  const r = terms.usage_rates;
  const field = [...new Set(input.fields)].reduce((s, f) => s + (r.enrichment_field[f] ?? r.enrichment_field.default ?? 0), 0);
  return { base: r.audience_delivery[input.audienceSubtype] ?? 0, destination: r.destination[input.destination] ?? 0, field };
}

function costs(terms: ContractTerms, unit: Unit, count: number, matchCents: number): { estimate: CostEstimate; cents: number } {
  const bps = terms.usage_discount_bps;
  const base = discounted(unit.base * count, bps);
  const field = discounted(unit.field * count, bps);
  const destination = discounted(unit.destination * count, bps);
  const cents = base + field + destination + matchCents;
  const unitPrice = Math.round(((unit.base + unit.field + unit.destination) * (10_000 - bps)) / 100) / 10_000;
  return {
    cents,
    estimate: {
      base_cost: centsToUsd(base),
      match_cost: centsToUsd(matchCents),
      field_cost: centsToUsd(field),
      destination_cost: centsToUsd(destination),
      total_cost: centsToUsd(cents),
      unit_price: unitPrice,
      billing_count: count,
    },
  };
}

export function createDeliveryBilling(deps: {
  db: Kysely<DB>;
  clock: Clock;
  ledger: LedgerService;
  termsOf: (orgId: string, conn?: Kysely<DB>) => Promise<ContractTerms>;
}) {
  const { db, clock, ledger, termsOf } = deps;
  const deliveryKey = (k: string) => `delivery:${k}`;
  const fileMatchKey = (runId: string) => `file-match:${runId}`;

  async function matchCents(trx: Kysely<DB>, terms: ContractTerms, input: DeliveryBillingInput): Promise<number> {
    if (!input.fileMatch) return 0;
    const done = await ledgerStore.byKey(trx, input.orgId, fileMatchKey(input.fileMatch.runId));
    return done ? 0 : discounted(terms.usage_rates.match.file * input.fileMatch.matchedCount, terms.usage_discount_bps);
  }

  /** Counts now how many of the identities hold an active license of the organization (`live`). */
  async function evaluateLicenses(
    orgId: string,
    identities: Iterable<number | bigint | string>,
  ): Promise<LicenseEvaluation & { identityCount: number }> {
    const keys = distinctKeys(identities);
    const now = clock.now();
    return {
      status: 'live',
      alreadyLicensedCount: await licenseStore.countActive(db, orgId, keys, now),
      evaluatedAt: now,
      identityCount: keys.length,
    };
  }

  async function quote(input: DeliveryBillingInput): Promise<DeliveryQuote> {
    const terms = await termsOf(input.orgId);
    const keys = input.identities ? distinctKeys(input.identities) : null;
    const count = keys ? keys.length : Math.max(0, Math.trunc(input.identityCount ?? 0));
    const unit = unitOf(terms, input);
    const match = await matchCents(db, terms, input);
    const max = costs(terms, unit, count, match);
    let license: DeliveryQuote['license_pricing'];
    if (input.license) {
      const l = input.license;
      license = {
        status: l.status,
        evaluated_at: l.evaluatedAt.toISOString(),
        already_licensed_count: Math.min(count, Math.max(0, Math.trunc(l.alreadyLicensedCount))),
      };
    } else if (keys) {
      const now = clock.now();
      license = {
        status: 'live',
        evaluated_at: now.toISOString(),
        already_licensed_count: await licenseStore.countActive(db, input.orgId, keys, now),
      };
    } else {
      license = { status: 'unavailable', evaluated_at: null, already_licensed_count: null };
    }
    const billable = count - (license.already_licensed_count ?? 0);
    const estimate = license.status === 'unavailable' ? max : costs(terms, unit, billable, match);
    return {
      cost_estimate: estimate.estimate,
      max_cost_estimate: max.estimate,
      license_pricing: license,
      cents: { estimate: estimate.cents, max: max.cents },
      identity_count: count,
      billable_count: license.status === 'unavailable' ? count : billable,
    };
  }

  return {
    quote,
    evaluateLicenses,

    /**
     * Holds the ceiling (402 BILLING_INSUFFICIENT_BALANCE for a prepaid payer that cannot cover it): with
     * `identities`, the cost of those not actively licensed now (licenses only grow until the charge,
     * except one expiring meanwhile); without, the maximum cost (every identity billable).
     */
    async reserve(input: DeliveryBillingInput & { idempotencyKey: string }): Promise<Reservation> {
      const q = await quote({ ...input, license: undefined });
      return ledger.reserveCents({
        orgId: input.orgId,
        kind: `audience_delivery.${input.audienceSubtype}`,
        unitPriceCents: 0,
        ceilingQuantity: q.billable_count,
        ceilingCents: input.ceilingCents === undefined ? q.cents.estimate : Math.min(q.cents.estimate, input.ceilingCents),
        fingerprint: input.idempotencyKey,
        idempotencyKey: deliveryKey(input.idempotencyKey),
        details: { destination: input.destination, fields: input.fields },
      });
    },

    /** Charges the delivery once per key inside the caller's transaction (licenses written in the same transaction). */
    async charge(trx: Kysely<DB>, input: DeliveryBillingInput & { idempotencyKey: string }): Promise<DeliveryCharge> {
      const key = deliveryKey(input.idempotencyKey);
      const kind = `audience_delivery.${input.audienceSubtype}`;
      const now = clock.now();
      const previous = (id: string, row: { amount_cents: number; details: string | null }): DeliveryCharge => {
        const d = row.details
          ? (JSON.parse(row.details) as { billable_count?: number; already_licensed_count?: number; match_cents?: number })
          : {};
        return {
          charged: false,
          ledger_id: id,
          cents: row.amount_cents + (d.match_cents ?? 0),
          amount: centsToUsd(row.amount_cents + (d.match_cents ?? 0)),
          billable_count: d.billable_count ?? 0,
          already_licensed_count: d.already_licensed_count ?? 0,
          match_cents: d.match_cents ?? 0,
        };
      };
      let row = await ledgerStore.byKey(trx, input.orgId, key);
      if (!row) {
        await ledgerStore.insertOnce(trx, {
          id: newId('use'),
          org_id: input.orgId,
          kind,
          quantity: 0,
          unit_price_cents: 0,
          amount_cents: 0,
          status: 'reserved',
          request_fingerprint: input.idempotencyKey,
          created_at: now,
          idempotency_key: key,
        });
        row = (await ledgerStore.byKey(trx, input.orgId, key))!;
      }
      if (row.status === 'released') throw new Error(`delivery reservation ${row.id} was released; reserve again under a new key`);
      // Claim the row: a racing charge under the same key waits here and then finds it settled.
      const claimed = await trx
        .updateTable('usage_ledger')
        .set({ status: 'settled', settled_at: now })
        .where('org_id', '=', input.orgId)
        .where('id', '=', row.id)
        .where('status', '=', 'reserved')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        const settled = (await ledgerStore.byId(trx, input.orgId, row.id))!;
        return previous(settled.id, settled);
      }
      const terms = await termsOf(input.orgId, trx);
      const keys = distinctKeys(input.identities ?? []);
      const billable = await licenseStore.license(trx, input.orgId, keys, now, row.id);
      const unit = unitOf(terms, input);
      const exact = costs(terms, unit, billable, 0).cents;
      let match = 0;
      if (input.fileMatch) {
        const m = await matchCents(trx, terms, input);
        const id = newId('use');
        const first = await ledgerStore.insertOnce(trx, {
          id,
          org_id: input.orgId,
          kind: 'match.file',
          quantity: input.fileMatch.matchedCount,
          unit_price_cents: terms.usage_rates.match.file,
          amount_cents: m,
          status: 'settled',
          request_fingerprint: input.idempotencyKey,
          created_at: now,
          settled_at: now,
          idempotency_key: fileMatchKey(input.fileMatch.runId),
          details: JSON.stringify({ run_id: input.fileMatch.runId }),
        });
        if (first) {
          match = m;
          await ledger.cover(trx, input.orgId, id, 'match.file', m);
        }
      }
      // The shown estimate is a ceiling: the identities' part is cut down to it (the run's usage, part of
      // that estimate, is never cut). Every identity is licensed all the same.
      const cents = input.ceilingCents === undefined ? exact : Math.max(0, Math.min(exact, input.ceilingCents - match));
      const details = {
        destination: input.destination,
        fields: input.fields,
        identity_count: keys.length,
        billable_count: billable,
        already_licensed_count: keys.length - billable,
        match_cents: match,
        ...(cents < exact ? { uncapped_cents: exact } : {}),
      };
      await trx
        .updateTable('usage_ledger')
        .set({
          quantity: billable,
          unit_price_cents: unit.base + unit.destination + unit.field,
          amount_cents: cents,
          details: JSON.stringify(details),
        })
        .where('org_id', '=', input.orgId)
        .where('id', '=', row.id)
        .execute();
      await ledger.cover(trx, input.orgId, row.id, kind, cents);
      return {
        charged: true,
        ledger_id: row.id,
        cents: cents + match,
        amount: centsToUsd(cents + match),
        billable_count: billable,
        already_licensed_count: keys.length - billable,
        match_cents: match,
      };
    },

    /** Releases a delivery reservation (nothing charged). Never throws. */
    release: (r: Pick<Reservation, 'id' | 'orgId'>) => ledger.release(r),
  };
}

export type DeliveryBilling = ReturnType<typeof createDeliveryBilling>;
