import { Type, type TSchema } from 'typebox';
import { DateTime, Nullable } from '../../core/schema.ts';
import { WEBHOOK_API_VERSION } from './types.ts';

/**
 * The events as receivers see them, for the OpenAPI 3.1 `webhooks` section. Additional fields may
 * appear in any object and must be tolerated (spec 6).
 */
const Envelope = (type: string, data: TSchema, subjectKind: string) =>
  Type.Object(
    {
      id: Type.String({ description: 'Unique per event; the same on every attempt and redelivery (use it to de-duplicate)' }),
      type: Type.Literal(type),
      created_at: DateTime(),
      api_version: Type.String({ description: `Payload version date, currently ${WEBHOOK_API_VERSION}` }),
      org_id: Type.String(),
      subject: Type.Object({ kind: Type.Literal(subjectKind), id: Type.String(), name: Nullable(Type.String()) }),
      data,
      links: Type.Object({}, { description: 'Always empty currently' }),
    },
    { additionalProperties: true },
  );

const SegmentReady = Type.Object(
  {
    status: Type.Literal('completed'),
    subtype: Type.String({ description: 'filter, matched, similarity or propensity' }),
    audience_id: Nullable(Type.String({ description: 'The auto-created wrapper audience, when create_audience was true' })),
    record_count: Nullable(Type.Integer({ description: 'Null below the privacy floor of 50' })),
    match_count: Type.Optional(Nullable(Type.Integer({ description: 'Matched segments only' }))),
    mapping_warnings: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: 'Matched segments only; as on GET /v1/match/file/{matchId}',
      }),
    ),
  },
  { additionalProperties: true },
);

const SegmentFailed = Type.Object(
  {
    status: Type.Literal('failed'),
    subtype: Type.String(),
    audience_id: Nullable(Type.String()),
    error_code: Type.String({ description: 'Stable machine-readable code, e.g. BQ_TABLE_MISSING' }),
    error_message: Type.String({ description: 'Client-safe explanation; the same as the segment error_message' }),
    failed_at: DateTime(),
  },
  { additionalProperties: true },
);

const DeliveryCompleted = Type.Object(
  {
    status: Type.Literal('completed'),
    delivery_id: Type.String(),
    audience_id: Type.String(),
    audience_version: Type.Integer(),
    destination: Type.String(),
    output_format: Nullable(Type.String()),
    output_record_count: Nullable(Type.Integer()),
    output_bytes: Nullable(Type.Integer()),
    part_count: Nullable(Type.Integer()),
    cost: Type.Number({ description: 'USD' }),
    download_urls_expire_at: Nullable(
      DateTime(
        'When the current signed URLs expire. The URLs themselves are never in the event (receivers log bodies); GET /v1/audiences/{id}/deliveries/{delivery_id} returns fresh ones',
      ),
    ),
    completed_at: DateTime(),
  },
  { additionalProperties: true },
);

const DeliveryFailed = Type.Object(
  {
    status: Type.Literal('failed'),
    delivery_id: Type.String(),
    audience_id: Type.String(),
    audience_version: Type.Integer(),
    destination: Type.String(),
    failure_reason: Type.String({ description: 'Client-safe explanation, as on the delivery' }),
    error_code: Nullable(Type.String()),
    cost: Type.Number({ description: 'USD charged; 0 when nothing was delivered' }),
    failed_at: DateTime(),
  },
  { additionalProperties: true },
);

const SIGNING = `Signed: \`X-SVC-Timestamp\` (unix seconds) and \`X-SVC-Signature: v1=<hex HMAC-SHA256(secret, "{timestamp}.{raw_body}")>\`,
fresh on each attempt; also \`X-SVC-Event-Id\`, \`X-SVC-Event-Type\`, \`X-SVC-Delivery-Id\`, \`X-SVC-Attempt\`. Verify in constant time and
reject timestamps more than 300 s away. The secret is the organization URL's for request and organization URLs, the subscription's for
subscriptions. Return 2xx quickly; timeouts, 408, 429 and 5xx are retried with backoff (10 attempts in all); 410 disables the endpoint;
other statuses are final. Delivery is at least once: de-duplicate on the event id.`;

function operation(summary: string, schema: TSchema) {
  return {
    post: {
      summary,
      description: SIGNING,
      tags: ['Webhooks'],
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { '2XX': { description: 'Received' }, '410': { description: 'Gone: stop sending to this endpoint' } },
    },
  };
}

const Count = Type.Integer({ minimum: 0 });
const IntegrationRunEnded = (status: 'completed' | 'failed') =>
  Type.Object(
    {
      status: Type.Literal(status),
      run_id: Type.String(),
      provider: Type.String(),
      connection_id: Type.String(),
      kind: Type.String(),
      billing_source: Type.String(),
      counts: Type.Object({
        input: Count,
        matched: Count,
        delivered: Count,
        applied: Count,
        unchanged: Count,
        skipped: Count,
        failed: Count,
      }),
      failure_code: Nullable(Type.String()),
      failure_message: Nullable(Type.String()),
      completed_at: DateTime(),
    },
    { additionalProperties: true },
  );

export const webhookDocs: Record<string, unknown> = {
  'segment.ready': operation('A segment build or file match completed', Envelope('segment.ready', SegmentReady, 'segment')),
  'segment.failed': operation(
    'A segment build or file match failed and needs attention',
    Envelope('segment.failed', SegmentFailed, 'segment'),
  ),
  'delivery.completed': operation(
    'An export or destination delivery completed',
    Envelope('delivery.completed', DeliveryCompleted, 'delivery'),
  ),
  'delivery.failed': operation('An export or destination delivery failed', Envelope('delivery.failed', DeliveryFailed, 'delivery')),
  'integration_run.completed': operation(
    'An integration run completed (decision 038)',
    Envelope('integration_run.completed', IntegrationRunEnded('completed'), 'integration_run'),
  ),
  'integration_run.failed': operation(
    'An integration run failed (decision 038)',
    Envelope('integration_run.failed', IntegrationRunEnded('failed'), 'integration_run'),
  ),
};
