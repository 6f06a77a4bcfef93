import { Type, type Static } from 'typebox';
import { DataReleaseRefSchema, DateTime, Literals, Nullable, PageQuery } from '../../../core/schema.ts';

const lit = Literals;

export const SUBTYPES = ['filter', 'matched', 'similarity', 'propensity'] as const;
export const SEGMENT_STATUSES = ['pending', 'active', 'failed', 'archived', 'expired'] as const;

export const DataReleaseSchema = DataReleaseRefSchema;

export const RecordCountReason = Nullable(lit('below_privacy_floor', 'counting', 'not_counted', 'count_failed'));
const recordCountReasonDoc =
  'Why record_count is null: `below_privacy_floor` (fewer than 50 records; graph-derived counts below the floor are never shown), ' +
  '`counting` (a count is running and lands later), `not_counted` (cleared by a refresh or edit; recount), `count_failed`.';

/** Filter conditions and groups are validated against the live catalog by the service (issues in the 400). */
const FilterConditionSchema = Type.Object({}, { additionalProperties: true, description: 'Filter condition (spec 2)' });
const FilterGroupSchema = Type.Object({}, { additionalProperties: true, description: 'Filter group {id, filters, combinator}' });

export const SegmentSchema = Type.Object({
  segment_id: Type.String(),
  name: Type.String(),
  subtype: lit(...SUBTYPES),
  status: lit(...SEGMENT_STATUSES),
  visibility: lit('org', 'private'),
  ephemeral: Type.Boolean({ description: 'Scratch segment: free, expires after an hour-granular TTL' }),
  record_count: Nullable(Type.Integer()),
  record_count_reason: { ...RecordCountReason, description: recordCountReasonDoc },
  expires_at: Type.String({ description: 'Date-only (YYYY-MM-DD) for a persistent segment; full date-time for an ephemeral one' }),
  current_version: Type.Integer({ minimum: 1 }),
  version_created_at: DateTime(),
  record_limit: Nullable(Type.Integer()),
  filters: Nullable(
    Type.Array(FilterConditionSchema, { description: 'The conditions when the segment is a single AND group; null otherwise' }),
  ),
  filter_groups: Nullable(Type.Array(FilterGroupSchema)),
  file_format: Type.Optional(Type.String()),
  compression: Type.Optional(Type.String()),
  shard_count: Type.Optional(Type.Integer()),
  column_mappings: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  mapping_confirmed: Type.Optional(Type.Boolean()),
  input_record_count: Type.Optional(Nullable(Type.Integer())),
  match_count: Type.Optional(Nullable(Type.Integer())),
  match_rate: Type.Optional(Nullable(Type.Number({ description: 'match_count / input_record_count, 4 decimals' }))),
  error_message: Type.Optional(Type.String()),
  // Matched create and refresh responses only (spec 2).
  match_id: Type.Optional(Type.String({ description: 'Matched: alias of segment_id' })),
  upload_url: Type.Optional(Type.String({ description: 'Matched create/refresh only: signed PUT URL when shard_count is 1' })),
  upload_urls: Type.Optional(Type.Array(Type.String(), { description: 'Matched create/refresh only: index-ordered signed PUT URLs' })),
  upload_expires_at: Type.Optional(DateTime()),
  seed_description: Type.Optional(Type.String()),
  seed_segment_id: Type.Optional(Type.String()),
  positive_class_segment_id: Type.Optional(Type.String()),
  workflow_run_id: Type.Optional(Nullable(Type.String())),
  shared_source_data: Type.Boolean({ description: "True for a matched duplicate that reads its source segment's member set" }),
  origin_campaign_id: Nullable(Type.String()),
  data_release: DataReleaseSchema,
  lineage: Type.Object(
    {
      parent_segment_id: Nullable(Type.String()),
      root_segment_id: Nullable(Type.String()),
      parent_version: Nullable(Type.Integer({ description: 'Version of the parent pinned when duplicated' })),
    },
    { description: 'Duplicated-from lineage; all null for an original segment' },
  ),
  audience_count: Type.Optional(Type.Integer({ description: 'GET /v1/segments/{id} only: active audiences referencing the segment' })),
  campaign_count: Type.Optional(Type.Integer({ description: 'GET /v1/segments/{id} only: distinct campaigns of those audiences' })),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const CreatedSegmentSchema = Type.Object({
  ...SegmentSchema.properties,
  audience_id: Type.Optional(Type.String({ description: 'The wrapper audience, when create_audience was true' })),
});

const MatchLevel = lit('I', 'H', 'D', 'S', 'A');

/** Every field of spec 4.3; each subtype accepts its own and refuses the others' with a clear error. */
export const CreateSegmentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    subtype: Type.Optional(lit(...SUBTYPES)),
    create_audience: Type.Optional(
      Type.Boolean({ description: 'Default true for filter and matched, false for similarity, propensity and ephemeral segments' }),
    ),
    visibility: Type.Optional(lit('org', 'private')),
    campaign_id: Type.Optional(Type.String({ maxLength: 200 })),
    webhook_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
    // filter
    filters: Type.Optional(Type.Unknown({ description: 'Filter only: flat array of filter conditions (saved as one AND group)' })),
    filter_groups: Type.Optional(Type.Unknown({ description: 'Filter only: array of filter groups' })),
    record_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Filter only' })),
    ephemeral: Type.Optional(Type.Boolean({ description: 'Filter only: a free scratch segment expiring after ttl_hours' })),
    ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, description: 'Ephemeral only: hours until expiry (default 24)' })),
    // matched
    file_format: Type.Optional(lit('csv', 'avro', 'json', 'jsonl')),
    compression: Type.Optional(lit('none', 'gzip')),
    match_level: Type.Optional(Type.Array(MatchLevel, { minItems: 1, maxItems: 5 })),
    spatial_mode: Type.Optional(lit('residential', 'work', 'auto')),
    shard_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    session_id: Type.Optional(Type.String({ maxLength: 200, description: "Matched: the client's own session label, recorded" })),
    hitl: Type.Optional(
      Type.Boolean({ description: 'Matched: stage the upload for review; similarity/propensity: pause at review gates' }),
    ),
    // similarity / propensity
    seed_description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    seed_segment_id: Type.Optional(Type.String({ maxLength: 200 })),
    positive_class_segment_id: Type.Optional(Type.String({ maxLength: 200 })),
    model_type: Type.Optional(lit('BOOSTED_TREE_CLASSIFIER', 'AUTOML_CLASSIFIER', 'LOGISTIC_REG')),
    excluded_columns: Type.Optional(
      Type.String({ maxLength: 2000, description: 'Comma-prefixed feature columns, e.g. ",age,income_band"' }),
    ),
    model_name: Type.Optional(Type.String({ maxLength: 200 })),
    generation_metadata_id: Type.Optional(Type.String({ maxLength: 200 })),
    target_size: Type.Optional(
      Type.Integer({
        minimum: 50,
        maximum: 100_000_000,
        description: 'Similarity/propensity: members to keep (default: a documented rule)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSegmentInput = Static<typeof CreateSegmentBody>;

export const ListSegmentsQuery = Type.Object(
  { ...PageQuery, include_archived: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);

export const SegmentListSchema = Type.Object({
  segments: Type.Array(SegmentSchema),
  count: Type.Integer(),
  next_cursor: Nullable(Type.String()),
});

export const PatchSegmentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    status: Type.Optional(lit('archived', 'active')),
    filters: Type.Optional(Type.Unknown()),
    filter_groups: Type.Optional(Type.Unknown()),
    record_limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchSegmentInput = Static<typeof PatchSegmentBody>;

export const RefreshSegmentBody = Type.Object(
  {
    force: Type.Optional(Type.Boolean({ description: 'Filter only: bump the version even when nothing changed' })),
    hitl: Type.Optional(Type.Boolean()),
    shard_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    compression: Type.Optional(lit('none', 'gzip')),
  },
  { additionalProperties: false },
);

export type RefreshSegmentInput = Static<typeof RefreshSegmentBody>;

export const RefreshedSegmentSchema = Type.Object({
  ...SegmentSchema.properties,
  refreshed: Type.Boolean(),
  affected_audiences: Type.Array(Type.String(), { description: 'Active audiences using the segment; they are not auto-refreshed' }),
  next_step: Type.String(),
});

export const DeleteSegmentQuery = Type.Object({ confirm_impact: Type.Optional(Type.Boolean({ default: false })) });

export const DuplicateSegmentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'Default: "<parent name> (copy)"' })),
    visibility: Type.Optional(lit('org', 'private')),
    campaign_id: Type.Optional(Type.String()),
    create_audience: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type DuplicateSegmentInput = Static<typeof DuplicateSegmentBody>;

export type SegmentDoc = Static<typeof SegmentSchema>;
export type CreatedSegmentDoc = Static<typeof CreatedSegmentSchema>;
export type RefreshedSegmentDoc = Static<typeof RefreshedSegmentSchema>;
