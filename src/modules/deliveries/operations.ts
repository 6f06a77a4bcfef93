/**
 * Operations of the deliveries area (spec 4.4 deliveries rows, 4.5 match deliveries, 2 Delivery): quote,
 * create, list and get an audience's deliveries, the match-id forwards, and the signed download.
 */
import { callerOf, defineOperation, reply, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams } from '../../core/schema.ts';
import type { DownloadHandler } from './download.ts';
import {
  AudienceDeliveryParams,
  CreateDeliveryBody,
  DeliveryListSchema,
  DeliverySchema,
  type DeliveryDoc,
  DownloadParams,
  DownloadQuery,
  FileSchema,
  MatchIdParams,
  QuoteBody,
  QuoteSchema,
} from './schemas.ts';
import type { DeliveryService } from './service.ts';

const tags = ['Deliveries'];
const REQUEST_ERRORS = [
  'AUDIENCE_NOT_FOUND',
  'AUDIENCE_EXPIRED',
  'AUDIENCE_PENDING',
  'AMBIGUOUS_FIELD_SELECTION',
  'UNKNOWN_FIELD',
  'DESTINATION_ID_REQUIRED',
  'DESTINATION_NOT_FOUND',
  'DESTINATION_KIND_MISMATCH',
  'DATA_RELEASE_UNAVAILABLE',
  'INVALID_REQUEST',
  'QUERY_TIMEOUT',
] as const;
const PRICE =
  "Priced by the organization's contract terms per delivered identity not already licensed to it (a license lasts 12 months; licensed identities " +
  "are delivered again free, also after a new major data release): the audience subtype's rate, plus the destination's rate (download is free), " +
  "plus a rate per identity (PII) field, less the contract discount; and, on the first successful delivery involving a file-match run, that run's deferred match cost. " +
  'license_pricing tells how many members are already licensed (live, or cached / unavailable for very large audiences; max_cost_estimate assumes none).';

export function deliveryOperations(deps: {
  deliveries: DeliveryService;
  download: DownloadHandler;
  audienceOfMatch: (viewer: { orgId: string; userId: string }, matchId: string) => Promise<string>;
}): Operation[] {
  const { deliveries } = deps;
  return [
    defineOperation({
      id: 'quoteAudienceDelivery',
      method: 'POST',
      path: '/v1/audiences/{id}/deliveries/quote',
      tags,
      access: 'creator',
      effect: 'read',
      summary: 'Quote a delivery of the audience (free)',
      description: `Free and repeatable. ${PRICE} The quote (valid one hour) is recorded as the audience's most recent quote; pass its quote_id to the delivery to hold it to the same selection.`,
      input: { params: IdParams, body: QuoteBody },
      status: 200,
      responses: { 200: QuoteSchema },
      errors: [...REQUEST_ERRORS],
      agent: { tool: 'quote_delivery' },
      examples: [
        {
          name: 'quote',
          summary: 'Quote a CSV download with the standard enrichment',
          request: { params: { id: EXAMPLE.audienceId }, body: { template_id: 'standard_enrichment' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => deliveries.quote(callerOf(ctx), params.id, body),
    }),
    defineOperation({
      id: 'createAudienceDelivery',
      method: 'POST',
      path: '/v1/audiences/{id}/deliveries',
      tags,
      access: 'creator',
      effect: 'spend',
      summary: 'Deliver the audience (download, sftp or s3)',
      description:
        `${PRICE} The estimate is reserved at once (estimated_cost) and settled into cost on completion; a failed delivery costs nothing. ` +
        'Answers 202 `processing`; poll GET .../deliveries/{did} or await delivery.completed / delivery.failed. An identical delivery (same audience version, member segment versions and data release, ' +
        'fields, unmatched-row policy and destination; format and compression aside) answers 200 with the existing delivery, `already_delivered: true` and `cost: 0`. Idempotency-Key supported.',
      input: { params: IdParams, body: CreateDeliveryBody },
      status: 202,
      responses: { 202: DeliverySchema, 200: DeliverySchema },
      errors: [
        ...REQUEST_ERRORS,
        'QUOTE_NOT_FOUND',
        'QUOTE_EXPIRED',
        'QUOTE_MISMATCH',
        'MAX_COST_EXCEEDED',
        'BILLING_INSUFFICIENT_BALANCE',
        'INVALID_WEBHOOK_URL',
      ],
      idempotency: {},
      agent: {
        tool: 'create_delivery',
        // An agent task follows the export: processing is working; failed carries failure_reason.
        follow: {
          read: (ctx, d: DeliveryDoc) => deliveries.get(callerOf(ctx), d.audience_id, d.delivery_id),
          progress: (d: DeliveryDoc) =>
            d.status === 'processing'
              ? { state: 'working' }
              : d.status === 'failed'
                ? { state: 'failed', reason: d.failure_reason ?? 'the delivery failed' }
                : { state: 'completed' },
        },
      },
      examples: [
        {
          name: 'download',
          summary: 'A gzip CSV download',
          request: { params: { id: EXAMPLE.audienceId }, body: { output_format: 'csv', output_compression: 'gzip' } },
          response: { status: 202 },
        },
      ],
      handler: async (ctx, { params, body }) => {
        const r = await deliveries.create(callerOf(ctx), params.id, body);
        return r.status === 200 ? reply(200, r.delivery) : reply(202, r.delivery);
      },
    }),
    defineOperation({
      id: 'listAudienceDeliveries',
      method: 'GET',
      path: '/v1/audiences/{id}/deliveries',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: "The audience's deliveries, newest first",
      description: 'Completed download deliveries carry freshly signed download_urls (24 hours).',
      input: { params: IdParams },
      status: 200,
      responses: { 200: DeliveryListSchema },
      errors: ['AUDIENCE_NOT_FOUND'],
      agent: { tool: 'list_deliveries' },
      examples: [{ name: 'list', summary: 'All deliveries', request: { params: { id: EXAMPLE.audienceId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => deliveries.list(callerOf(ctx), params.id),
    }),
    defineOperation({
      id: 'getAudienceDelivery',
      method: 'GET',
      path: '/v1/audiences/{id}/deliveries/{did}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'A delivery, with download URLs signed afresh',
      description:
        'Status, cost, counts; a completed download delivery returns download_urls valid for 24 hours from this call, parts in order.',
      input: { params: AudienceDeliveryParams },
      status: 200,
      responses: { 200: DeliverySchema },
      errors: ['AUDIENCE_NOT_FOUND', 'DELIVERY_NOT_FOUND'],
      agent: { tool: 'get_delivery' },
      examples: [
        {
          name: 'missing',
          summary: 'An unknown delivery',
          request: { params: { id: EXAMPLE.audienceId, did: EXAMPLE.deliveryId } },
          response: { status: 404 },
        },
      ],
      handler: async (ctx, { params }) => deliveries.get(callerOf(ctx), params.id, params.did),
    }),
    defineOperation({
      id: 'createMatchDelivery',
      method: 'POST',
      path: '/v1/match/{match_id}/deliveries',
      tags,
      access: 'creator',
      effect: 'spend',
      summary: 'Deliver a file match (forwards to its audience)',
      description: 'The same request and answers as POST /v1/audiences/{id}/deliveries, for the audience that wraps the match segment.',
      input: { params: MatchIdParams, body: CreateDeliveryBody },
      status: 202,
      responses: { 202: DeliverySchema, 200: DeliverySchema },
      errors: [
        ...REQUEST_ERRORS,
        'SEGMENT_NOT_FOUND',
        'QUOTE_NOT_FOUND',
        'QUOTE_EXPIRED',
        'QUOTE_MISMATCH',
        'MAX_COST_EXCEEDED',
        'BILLING_INSUFFICIENT_BALANCE',
        'INVALID_WEBHOOK_URL',
      ],
      idempotency: {},
      agent: false,
      examples: [
        {
          name: 'pending',
          summary: 'A match still waiting for its upload',
          request: { params: { match_id: EXAMPLE.matchedSegmentId }, body: {} },
          response: { status: 409 },
        },
      ],
      handler: async (ctx, { params, body }) => {
        const audienceId = await deps.audienceOfMatch(callerOf(ctx), params.match_id);
        const r = await deliveries.create(callerOf(ctx), audienceId, body);
        return r.status === 200 ? reply(200, r.delivery) : reply(202, r.delivery);
      },
    }),
    defineOperation({
      // The spec's row writes {id}; OpenAPI forbids two paths differing only by a parameter name.
      id: 'listMatchDeliveries',
      method: 'GET',
      path: '/v1/match/{match_id}/deliveries',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: "A file match's deliveries, newest first",
      description: 'The deliveries of the audience that wraps the match segment.',
      input: { params: MatchIdParams },
      status: 200,
      responses: { 200: DeliveryListSchema },
      errors: ['SEGMENT_NOT_FOUND', 'AUDIENCE_NOT_FOUND'],
      agent: false,
      examples: [
        {
          name: 'list',
          summary: 'Deliveries of a match',
          request: { params: { match_id: EXAMPLE.matchedSegmentId } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params }) => deliveries.list(callerOf(ctx), await deps.audienceOfMatch(callerOf(ctx), params.match_id)),
    }),
    defineOperation({
      id: 'downloadDeliveryPart',
      method: 'GET',
      path: '/v1/downloads/{org}/{did}/{part}',
      tags,
      access: 'public',
      effect: 'read',
      summary: 'GET {download_url}: one part of a download delivery (signed URL; no Authorization header)',
      description:
        'The signature is the only credential, bound to one part; 403 DOWNLOAD_URL_INVALID (tampered) or DOWNLOAD_URL_EXPIRED (past 24 hours: GET the delivery for fresh URLs).',
      input: { params: DownloadParams, query: DownloadQuery },
      status: 200,
      responses: { 200: FileSchema },
      errors: ['DOWNLOAD_URL_INVALID', 'DOWNLOAD_URL_EXPIRED', 'DOWNLOAD_GONE'],
      agent: false,
      examples: [
        {
          name: 'bad-signature',
          summary: 'A URL whose signature does not verify is refused',
          request: {
            params: { org: 'org_Example', did: EXAMPLE.deliveryId, part: 'part-00000.csv' },
            query: { expires: '4102444800', signature: 'bad' },
          },
          response: { status: 403 },
        },
      ],
      handler: async (_ctx, { params, query }) => deps.download(params, query),
    }),
  ];
}
