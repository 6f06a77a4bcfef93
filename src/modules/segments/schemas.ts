import { Type } from '@fastify/type-provider-typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

const lit = <T extends string>(...values: T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const SUBTYPES = ['filter', 'matched', 'similarity', 'propensity'] as const;
export const SEGMENT_STATUSES = ['pending', 'active', 'failed', 'archived', 'expired'] as const;

export const DataReleaseSchema = Type.Object(
  { major: Type.Integer({ minimum: 1 }), minor: Type.Integer({ minimum: 0 }) },
  { description: 'Data release current when the resource was created or last refreshed' },
);

export const RecordCountReason = Nullable(
  lit('below_privacy_floor', 'counting', 'not_counted', 'count_failed'),
);
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
  filters: Nullable(Type.Array(FilterConditionSchema, { description: 'The conditions when the segment is a single AND group; null otherwise' })),
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
  shared_source_data: Type.Boolean({ description: 'True for a matched duplicate that reads its source segment\'s member set' }),
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

export const CreateSegmentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    subtype: Type.Optional(lit(...SUBTYPES)),
    create_audience: Type.Optional(Type.Boolean({ description: 'Default true for filter and matched, false otherwise (and false for ephemeral)' })),
    filters: Type.Optional(Type.Unknown({ description: 'Flat array of filter conditions (saved as one AND group)' })),
    filter_groups: Type.Optional(Type.Unknown({ description: 'Array of filter groups' })),
    record_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    visibility: Type.Optional(lit('org', 'private')),
    campaign_id: Type.Optional(Type.String()),
    webhook_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
    ephemeral: Type.Optional(Type.Boolean()),
    ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, description: 'Ephemeral only: hours until expiry (default 24)' })),
  },
  // Fields of the later subtypes (file_format, seed_description, ...) are accepted and refused by the service with a clear code.
  { additionalProperties: true },
);

export const SegmentIdParams = Type.Object({ id: Type.String() });

export const ListSegmentsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String()),
  include_archived: Type.Optional(Type.Boolean({ default: false })),
});

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

export const RefreshSegmentBody = Type.Object(
  {
    force: Type.Optional(Type.Boolean({ description: 'Filter only: bump the version even when nothing changed' })),
    hitl: Type.Optional(Type.Boolean()),
    shard_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    compression: Type.Optional(lit('none', 'gzip')),
  },
  { additionalProperties: false },
);

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
