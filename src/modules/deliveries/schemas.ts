/** Request and response schemas of the deliveries area (spec 2 Delivery, Cost estimate, License pricing). */
import { Type, type Static } from 'typebox';
import { DataReleaseRefSchema, DateTime, Literals, Nullable } from '../../core/schema.ts';

const FieldSelection = {
  field_list: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 500,
      description: 'Catalog attribute names (mutually exclusive with template_id)',
    }),
  ),
  template_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: '`standard_iag` or `standard_enrichment` (the default)' }),
  ),
};

const Target = {
  destination: Type.Optional(Literals('download', 'sftp', 's3')),
  destination_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Configured destination of that kind (required for sftp and s3)' }),
  ),
  include_unmatched: Type.Optional(
    Type.Boolean({ description: 'Matched audiences: also export input rows that did not match (default false)' }),
  ),
};

export const QuoteBody = Type.Object({ ...Target, ...FieldSelection }, { additionalProperties: false });
export type QuoteInput = Static<typeof QuoteBody>;

export const CreateDeliveryBody = Type.Object(
  {
    ...Target,
    ...FieldSelection,
    output_format: Type.Optional(Literals('csv', 'avro', 'json', 'jsonl')),
    output_compression: Type.Optional(Literals('none', 'gzip')),
    quote_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    max_cost: Type.Optional(Type.Number({ minimum: 0, description: 'USD; the delivery is refused when its estimate is above it' })),
    webhook_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type CreateDeliveryInput = Static<typeof CreateDeliveryBody>;

export const CostEstimateSchema = Type.Object({
  base_cost: Type.Number(),
  match_cost: Type.Number(),
  field_cost: Type.Number(),
  destination_cost: Type.Number(),
  total_cost: Type.Number(),
  unit_price: Type.Number({ description: 'USD per record' }),
  billing_count: Type.Integer({ minimum: 0 }),
});
export type CostEstimate = Static<typeof CostEstimateSchema>;

export const LicensePricingSchema = Type.Object({
  status: Literals('live', 'cached', 'unavailable'),
  evaluated_at: Nullable(DateTime()),
  already_licensed_count: Nullable(Type.Integer({ minimum: 0 })),
});

export const QuoteSchema = Type.Object({
  quote_id: Type.String(),
  audience_id: Type.String(),
  audience_version: Type.Integer(),
  expires_at: DateTime(),
  cost_estimate: CostEstimateSchema,
  max_cost_estimate: CostEstimateSchema,
  license_pricing: LicensePricingSchema,
});
export type QuoteDoc = Static<typeof QuoteSchema>;

export const DeliverySchema = Type.Object({
  delivery_id: Type.String(),
  audience_id: Type.String(),
  audience_version: Type.Integer(),
  destination: Literals('download', 'sftp', 's3'),
  destination_id: Nullable(Type.String()),
  template_id: Nullable(Type.String()),
  field_list: Nullable(Type.Array(Type.String())),
  include_unmatched: Type.Boolean(),
  status: Literals('processing', 'completed', 'failed'),
  cost: Type.Number(),
  estimated_cost: Type.Number(),
  already_delivered: Type.Boolean(),
  message: Type.Optional(Type.String()),
  created_at: DateTime(),
  expires_at: DateTime(),
  completed_at: Nullable(DateTime()),
  output_format: Literals('csv', 'avro', 'json', 'jsonl'),
  output_compression: Literals('none', 'gzip'),
  output_bytes: Nullable(Type.Integer()),
  download_urls: Nullable(Type.Array(Type.String())),
  output_record_count: Nullable(Type.Integer()),
  failure_reason: Nullable(Type.String()),
  matched_segment_id: Nullable(Type.String()),
  source_job_id: Nullable(Type.String()),
  integration_run_id: Type.Optional(
    Type.String({
      pattern: '^ir_[A-Za-z0-9_-]{40}$',
      description: 'Only for private partnership workflows: the integration run of the match',
    }),
  ),
  data_release: DataReleaseRefSchema,
});
export type DeliveryDoc = Static<typeof DeliverySchema>;

export const DeliveryListSchema = Type.Object({ deliveries: Type.Array(DeliverySchema) });

export const AudienceDeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  did: Type.String({ minLength: 1, maxLength: 200 }),
});
export const MatchIdParams = Type.Object({ match_id: Type.String({ minLength: 1, maxLength: 200 }) });
export const DownloadParams = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 200 }),
  did: Type.String({ minLength: 1, maxLength: 200 }),
  part: Type.String({ minLength: 1, maxLength: 200 }),
});
export const DownloadQuery = Type.Object({
  expires: Type.Optional(Type.String({ maxLength: 20 })),
  signature: Type.Optional(Type.String({ maxLength: 200 })),
});
export const FileSchema = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The part file bytes' });

// Destinations (account scope)
export const CreateDestinationBody = Type.Object(
  {
    kind: Literals('sftp', 's3'),
    name: Type.String({ minLength: 1, maxLength: 120 }),
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'sftp: host, port, username, remote_dir, file_name_template, host_key_sha256; s3: endpoint, region, bucket, prefix, force_path_style, object_key_template',
    }),
    secrets: Type.Record(Type.String(), Type.Unknown(), {
      description: 'sftp: password or private_key (+ passphrase); s3: access_key_id, secret_access_key. Encrypted at rest, never returned',
    }),
  },
  { additionalProperties: false },
);
export type CreateDestinationInput = Static<typeof CreateDestinationBody>;

export const DestinationSchema = Type.Object({
  id: Type.String(),
  kind: Literals('sftp', 's3'),
  name: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  created_at: DateTime(),
});
export type DestinationDoc = Static<typeof DestinationSchema>;
export const DestinationListSchema = Type.Object({ destinations: Type.Array(DestinationSchema) });
export const DestinationTestSchema = Type.Object({ ok: Type.Boolean(), tested_at: DateTime() });
