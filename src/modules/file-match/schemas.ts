import { Type, type Static } from 'typebox';
import { DateTime, Literals as lit, Nullable } from '../../core/schema.ts';
import { CreatedSegmentSchema } from '../segments/index.ts';
const Level = lit('I', 'H', 'D', 'S', 'A');

export const MatchFileBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    file_format: Type.Optional(lit('csv', 'avro', 'json', 'jsonl')),
    compression: Type.Optional(lit('none', 'gzip')),
    create_audience: Type.Optional(Type.Boolean({ default: true })),
    campaign_id: Type.Optional(Type.String()),
    webhook_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
    hitl: Type.Optional(Type.Boolean({ default: false })),
    match_level: Type.Optional(Type.Array(Level, { minItems: 1 })),
    spatial_mode: Type.Optional(lit('residential', 'work', 'auto')),
    shard_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 1 })),
    visibility: Type.Optional(lit('org', 'private')),
    session_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false, description: 'Every field is optional: an empty body (or none) starts a CSV match with defaults' },
);
export type MatchFileInput = Static<typeof MatchFileBody>;

/** The created segment with its upload URL(s) (spec 4.5); create and refresh carry them. */
export const MatchFileResponse = Type.Object({
  ...CreatedSegmentSchema.properties,
  integration_run_id: Type.Optional(
    Type.String({
      pattern: '^ir_[A-Za-z0-9_-]{40}$',
      description: 'When X-Integration-Execution-Key was sent: the private integration run (the same on every replay)',
    }),
  ),
});
export const MatchFileHeaders = Type.Object({
  'x-integration-execution-key': Type.Optional(
    Type.String({
      description:
        'OAuth partnerships only (a pre-registered confidential partner client): creates, or replays, a private integration run for this match; 8-200 characters of A-Z a-z 0-9 . _ : -',
    }),
  ),
});

export const MatchIdParams = Type.Object({ match_id: Type.String({ maxLength: 200 }) });
export const SegmentIdParams = Type.Object({ segment_id: Type.String({ maxLength: 200 }) });
export const UploadParams = Type.Object({
  org: Type.String({ maxLength: 64 }),
  seg: Type.String({ maxLength: 64 }),
  version: Type.String({ maxLength: 12 }),
  shard: Type.String({ maxLength: 4 }),
});
export const UploadQuery = Type.Object({
  expires: Type.Optional(Type.String({ maxLength: 20 })),
  signature: Type.Optional(Type.String({ maxLength: 200 })),
});

const Warning = Type.Object({ column: Type.String(), source: lit('analysis', 'nested_addresses'), message: Type.String() });

export const AnalysisResponse = Type.Object({
  segment_id: Type.String(),
  analysis: Type.Object({
    columns: Type.Array(
      Type.Object({
        source_column: Type.String(),
        mapped_to: Nullable(Type.String()),
        inferred_type: Type.String(),
        confidence: Type.Number({ description: 'Below 0.6 is uncertain' }),
        warning: Nullable(Type.String()),
      }),
    ),
    unmapped_columns: Type.Array(Type.String()),
    recommendations: Type.Array(Type.String()),
  }),
});

export const MatchStatusResponse = Type.Object({
  match_id: Type.String(),
  segment_id: Type.String(),
  audience_id: Nullable(Type.String()),
  name: Type.String(),
  status: Type.String(),
  matching_status: lit('awaiting_upload', 'awaiting_mappings', 'queued', 'matching', 'completed', 'failed', 'cancelled'),
  mapping_warnings: Type.Array(Warning),
  progress: Type.Object({
    shards_uploaded: Type.Integer(),
    shard_count: Type.Integer(),
    rows_read: Type.Integer(),
    rows_matched: Type.Integer(),
  }),
  file_format: Type.String(),
  compression: Type.String(),
  hitl: Type.Boolean(),
  input_record_count: Nullable(Type.Integer()),
  match_count: Nullable(Type.Integer()),
  match_rate: Nullable(Type.Number()),
  column_mappings: Nullable(Type.Record(Type.String(), Type.String())),
  mapping_confirmed: Type.Boolean(),
  /** Why a failed match failed (e.g. LINE_TOO_LONG, FILE_TOO_LARGE_UNCOMPRESSED); null unless failed. */
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const UploadResponse = Type.Object({
  ok: Type.Boolean(),
  segment_id: Type.String(),
  shard_index: Type.Integer(),
  bytes: Type.Integer(),
  shards_uploaded: Type.Integer(),
  shard_count: Type.Integer(),
  matching_status: Type.String(),
});

export const UploadFailedBody = Type.Object(
  { audience_id: Type.Optional(Type.String()), reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export const UploadFailedResponse = Type.Object({ ok: Type.Boolean(), already_resolved: Type.Boolean() });

export const MappingsBody = Type.Object(
  { column_mappings: Type.Record(Type.String(), Type.String(), { description: 'Source column -> standard attribute, or "(skip)"' }) },
  { additionalProperties: false },
);
export const MappingsResponse = Type.Object({
  ok: Type.Boolean(),
  segment_id: Type.String(),
  audience_id: Type.Optional(Type.String()),
  column_mappings: Type.Record(Type.String(), Type.String()),
  mapping_confirmed: Type.Boolean(),
  resolution_started: Type.Boolean(),
});
export const CancelResponse = Type.Object({
  ok: Type.Boolean(),
  segment_id: Type.String(),
  audience_id: Type.Optional(Type.String()),
  cancelled: Type.Boolean(),
});

export type MatchStatusDoc = Static<typeof MatchStatusResponse>;
