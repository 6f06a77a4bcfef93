/**
 * Deliveries of an audience (spec 2 Delivery, 3 Delivery status, 4.4, 4.5, 8): quotes, creation (the
 * estimate reserved, then one export job), free re-delivery of identical content, listing and reading
 * with freshly signed download URLs. Protocol-free.
 *
 *   quote  -> numbers through the privacy port, priced by the billing port; recorded on the audience
 *   create -> 200 already_delivered (identical content delivered or in flight: free), or reserve the
 *             estimate, insert `processing` + enqueue the export job in one transaction -> 202
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { SegmentsApi } from '../segments/index.ts';
import { centsToUsd, insufficientBalance } from '../billing/index.ts';
import { billingInput, type DeliveryBilling, type DeliveryPricing } from './pricing.ts';
import { DELIVERY_EXPORT_JOB } from './job-names.ts';
import { presentDelivery, type DownloadSigner } from './present.ts';
import { snapshotOf, type RequestResolver } from './request.ts';
import type { CreateDeliveryInput, DeliveryDoc, QuoteDoc, QuoteInput } from './schemas.ts';
import { deliveryStore, quoteStore } from './store.ts';

export const QUOTE_TTL_MS = 60 * 60_000;
import { DOWNLOAD_TTL_MS as DOWNLOAD_URL_TTL_MS } from './present.ts';
/**
 * The key of one delivered output: the request's content (audience snapshot, release, fields,
 * unmatched-row policy, destination: its selection key, which quotes carry too) in one output format
 * and compression. Another format is a new export in that format, free through license reuse; the
 * same one is the existing delivery (decision 032).
 */
export const outputKey = (selectionKey: string, format: string, compression: string) =>
  createHash('sha256')
    .update(JSON.stringify([selectionKey, format, compression]))
    .digest('hex');

export const REDELIVERY_MESSAGE = 'Identical content was already delivered to this destination: no charge; this is the existing delivery.';

export interface DeliveryServiceDeps {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  segments: SegmentsApi;
  requests: RequestResolver;
  billing: DeliveryBilling;
  pricing: DeliveryPricing;
  validateWebhookUrl: (url: string) => void;
  signer: () => Promise<DownloadSigner>;
}

export function createDeliveryService(deps: DeliveryServiceDeps) {
  const { db, clock, requests, billing, pricing } = deps;

  /**
   * Reserves the ceiling: the exact cost of the members not licensed now (above the live lookup limit,
   * every member), never above the shown estimate (the charge is capped at it too, decision 032). A
   * prepaid payer short of it is refused (402) with the amounts of the shown estimate:
   * the ledger's own refusal names the exact ceiling, an exact count of the audience.
   */
  async function reserveOrRefuse(input: Parameters<DeliveryBilling['reserveDelivery']>[0], shownCents: number) {
    try {
      return await billing.reserveDelivery(input);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'BILLING_INSUFFICIENT_BALANCE') throw error;
      const can = Math.round(Number(error.details?.available_balance ?? 0) * 100);
      throw insufficientBalance(Math.max(shownCents, can + 1), can);
    }
  }

  async function present(row: Parameters<typeof presentDelivery>[0], extra: Partial<DeliveryDoc> = {}): Promise<DeliveryDoc> {
    return { ...presentDelivery(row, await deps.signer(), clock.now()), ...extra };
  }

  async function ownDelivery(viewer: Viewer, audienceId: string, deliveryId: string) {
    await deps.segments.findVisibleAudience(viewer, audienceId);
    const row = await deliveryStore.find(db, viewer.orgId, deliveryId);
    if (!row || row.audience_id !== audienceId)
      throw new DomainError('DELIVERY_NOT_FOUND', `No delivery ${deliveryId} of audience ${audienceId}.`);
    return row;
  }

  return {
    async quote(viewer: Viewer, audienceId: string, body: QuoteInput): Promise<QuoteDoc> {
      const r = await requests.resolve(viewer, audienceId, body);
      const { quote: q } = await pricing.shown(viewer.orgId, r);
      const now = clock.now();
      const doc: QuoteDoc = {
        quote_id: newId('dq'),
        audience_id: r.audience.id,
        audience_version: r.audience.version,
        expires_at: new Date(now.getTime() + QUOTE_TTL_MS),
        cost_estimate: q.cost_estimate,
        max_cost_estimate: q.max_cost_estimate,
        license_pricing: {
          ...q.license_pricing,
          evaluated_at: q.license_pricing.evaluated_at === null ? null : new Date(q.license_pricing.evaluated_at),
        },
      };
      await db.transaction().execute(async (trx) => {
        await quoteStore.insert(trx, {
          id: doc.quote_id,
          org_id: viewer.orgId,
          audience_id: r.audience.id,
          audience_version: r.audience.version,
          selection_key: r.contentKey,
          total_cost_cents: q.cents.estimate,
          body: JSON.stringify(doc),
          created_at: now,
          expires_at: doc.expires_at,
        });
        await deps.segments.recordQuote(trx, viewer.orgId, r.audience.id, { id: doc.quote_id, costCents: q.cents.estimate });
      });
      return doc;
    },

    /** 202 with the new delivery, or 200 with the existing one (already_delivered, cost 0). */
    /** `unbilled`: a delivery an integration run with a partner billing source makes (the partner bills it): nothing reserved or charged. */
    async create(
      viewer: Viewer,
      audienceId: string,
      body: CreateDeliveryInput,
      options: { unbilled?: boolean } = {},
    ): Promise<{ status: 200 | 202; delivery: DeliveryDoc }> {
      const r = await requests.resolve(viewer, audienceId, body);
      if (body.webhook_url) deps.validateWebhookUrl(body.webhook_url);
      if (body.quote_id) {
        const q = await quoteStore.find(db, viewer.orgId, body.quote_id);
        if (!q || q.audience_id !== r.audience.id)
          throw new DomainError('QUOTE_NOT_FOUND', `No quote ${body.quote_id} for audience ${r.audience.id}.`);
        if (new Date(q.expires_at).getTime() <= clock.now().getTime())
          throw new DomainError('QUOTE_EXPIRED', 'The quote has expired.', {
            nextStep: `POST /v1/audiences/${r.audience.id}/deliveries/quote for a new one.`,
          });
        if (q.selection_key !== r.contentKey)
          throw new DomainError('QUOTE_MISMATCH', 'The quote was made for another audience version, field selection or destination.');
      }
      const format = body.output_format ?? 'csv';
      const compression = format === 'avro' ? 'none' : (body.output_compression ?? 'none');
      const contentKey = outputKey(r.contentKey, format, compression);
      const existing = await deliveryStore.byContentKey(db, viewer.orgId, contentKey);
      if (existing)
        return { status: 200, delivery: await present(existing, { already_delivered: true, cost: 0, message: REDELIVERY_MESSAGE }) };

      // The estimate shown and held against max_cost is the quote's; the reservation holds the exact ceiling.
      const shown = await pricing.shown(viewer.orgId, r);
      const estimateCents = shown.quote.cents.estimate;
      if (body.max_cost !== undefined && estimateCents > Math.round(body.max_cost * 100)) {
        throw new DomainError(
          'MAX_COST_EXCEEDED',
          `The estimated cost ${centsToUsd(estimateCents)} USD is above max_cost ${body.max_cost}.`,
          {
            details: { estimated_cost: centsToUsd(estimateCents), max_cost: body.max_cost },
            nextStep: 'Raise max_cost, choose fewer fields, or narrow the audience.',
          },
        );
      }
      const id = newId('dlv');
      // A delivery a partner bills (an integration run's, decision 038) reserves nothing and is charged nothing.
      const held = options.unbilled
        ? null
        : await reserveOrRefuse(
            {
              ...billingInput(viewer.orgId, r),
              ...(shown.identities ? { identities: shown.identities } : { identityCount: r.memberCount }),
              idempotencyKey: id,
              ceilingCents: estimateCents,
            },
            estimateCents,
          );
      const now = clock.now();
      const row = {
        id,
        org_id: viewer.orgId,
        audience_id: r.audience.id,
        audience_version: r.audience.version,
        created_by: viewer.userId,
        destination: r.destination,
        destination_id: r.destinationId,
        template_id: r.templateId,
        field_list: r.fieldList ? JSON.stringify(r.fieldList) : null,
        fields: JSON.stringify(r.fields.map((f) => f.name)),
        include_unmatched: r.includeUnmatched,
        output_format: format,
        output_compression: compression,
        status: 'processing',
        content_key: contentKey,
        estimated_cost_cents: estimateCents,
        cost_cents: 0,
        reservations: JSON.stringify(held ? [held] : []),
        quote_id: body.quote_id ?? null,
        webhook_url: body.webhook_url ?? null,
        matched_segment_id: r.matched?.segmentId ?? null,
        source_job_id: r.matched?.run.runId ?? null,
        integration_run_id: r.matched?.run.integrationRunId ?? null,
        release_major: r.audience.release.major,
        release_minor: r.audience.release.minor,
        output_bytes: null,
        output_record_count: null,
        billed_count: null,
        parts: null,
        failure_reason: null,
        error_code: null,
        snapshot: JSON.stringify(snapshotOf(r)),
        created_at: now,
        completed_at: null,
        expires_at: new Date(now.getTime() + DOWNLOAD_URL_TTL_MS),
        unbilled: options.unbilled === true,
      };
      let inserted = false;
      try {
        inserted = await db.transaction().execute(async (trx) => {
          if (!(await deliveryStore.insertUnlessDelivered(trx, row))) return false;
          await deps.queue.send(DELIVERY_EXPORT_JOB, { orgId: viewer.orgId, deliveryId: id }, {}, trx);
          return true;
        });
      } finally {
        if (!inserted && held) await billing.releaseDelivery(held);
      }
      if (inserted) deps.queue.wake(DELIVERY_EXPORT_JOB);
      if (!inserted) {
        // An identical request won the race: it is the delivery, this one is free.
        const winner = await deliveryStore.byContentKey(db, viewer.orgId, contentKey);
        if (!winner)
          throw new DomainError('INTERNAL_ERROR', 'An identical delivery was created and removed meanwhile; send the request again.');
        return { status: 200, delivery: await present(winner, { already_delivered: true, cost: 0, message: REDELIVERY_MESSAGE }) };
      }
      return { status: 202, delivery: await present({ ...row, output_bytes: null }) };
    },

    async list(viewer: Viewer, audienceId: string): Promise<{ deliveries: DeliveryDoc[] }> {
      await deps.segments.findVisibleAudience(viewer, audienceId);
      const rows = await deliveryStore.listForAudience(db, viewer.orgId, audienceId);
      const signer = await deps.signer();
      return { deliveries: rows.map((row) => presentDelivery(row, signer, clock.now())) };
    },

    get: async (viewer: Viewer, audienceId: string, deliveryId: string) => present(await ownDelivery(viewer, audienceId, deliveryId)),
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
