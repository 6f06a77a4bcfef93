import { Type } from '@fastify/type-provider-typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { CreatedSegmentSchema, RefreshedSegmentSchema } from '../segments/schemas.ts';

const lit = <T extends string>(...values: T[]) => Type.Union(values.map((v) => Type.Literal(v)));
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
  },
  { additionalProperties: false },
);

/** Fields only create and refresh responses carry (spec 2). */
export const UploadFields = {
  match_id: Type.Optional(Type.String({ description: 'Alias of segment_id' })),
  upload_url: Type.Optional(Type.String({ description: 'Signed PUT URL (one shard); no Authorization header' })),
  upload_urls: Type.Optional(Type.Array(Type.String(), { description: 'Index-ordered signed PUT URLs when shard_count > 1' })),
  upload_expires_at: Type.Optional(DateTime()),
};

export const MatchFileResponse = Type.Object({ ...CreatedSegmentSchema.properties, ...UploadFields });
export const RefreshedMatchedSchema = Type.Object({ ...RefreshedSegmentSchema.properties, ...UploadFields });

export const MatchIdParams = Type.Object({ match_id: Type.String() });
export const SegmentIdParams = Type.Object({ segment_id: Type.String() });
export const IdParams = Type.Object({ id: Type.String() });
export const UploadParams = Type.Object({ org: Type.String(), seg: Type.String(), version: Type.String(), shard: Type.String() });
export const UploadQuery = Type.Object({ expires: Type.Optional(Type.String()), signature: Type.Optional(Type.String()) });

const Warning = Type.Object({ column: Type.String(), source: lit('analysis', 'nested_addresses'), message: Type.String() });

export const AnalysisResponse = Type.Object({
  segment_id: Type.String(),
  analysis: Type.Object({
    columns: Type.Array(Type.Object({
      source_column: Type.String(), mapped_to: Nullable(Type.String()), inferred_type: Type.String(),
      confidence: Type.Number({ description: 'Below 0.6 is uncertain' }), warning: Nullable(Type.String()),
    })),
    unmapped_columns: Type.Array(Type.String()),
    recommendations: Type.Array(Type.String()),
  }),
});

export const MatchStatusResponse = Type.Object({
  match_id: Type.String(), segment_id: Type.String(), audience_id: Nullable(Type.String()), name: Type.String(), status: Type.String(),
  matching_status: lit('awaiting_upload', 'awaiting_mappings', 'queued', 'matching', 'completed', 'failed', 'cancelled'),
  mapping_warnings: Type.Array(Warning),
  progress: Type.Object({ shards_uploaded: Type.Integer(), shard_count: Type.Integer(), rows_read: Type.Integer(), rows_matched: Type.Integer() }),
  file_format: Type.String(), compression: Type.String(), hitl: Type.Boolean(),
  input_record_count: Nullable(Type.Integer()), match_count: Nullable(Type.Integer()), match_rate: Nullable(Type.Number()),
  column_mappings: Nullable(Type.Record(Type.String(), Type.String())), mapping_confirmed: Type.Boolean(),
  error_message: Nullable(Type.String()), created_at: DateTime(), updated_at: DateTime(),
});

export const UploadResponse = Type.Object({
  ok: Type.Boolean(), segment_id: Type.String(), shard_index: Type.Integer(), bytes: Type.Integer(),
  shards_uploaded: Type.Integer(), shard_count: Type.Integer(), matching_status: Type.String(),
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
  ok: Type.Boolean(), segment_id: Type.String(), audience_id: Type.Optional(Type.String()), column_mappings: Type.Record(Type.String(), Type.String()),
  mapping_confirmed: Type.Boolean(), resolution_started: Type.Boolean(),
});
export const CancelResponse = Type.Object({ ok: Type.Boolean(), segment_id: Type.String(), audience_id: Type.Optional(Type.String()), cancelled: Type.Boolean() });
