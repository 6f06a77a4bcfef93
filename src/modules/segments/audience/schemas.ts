import { Type, type Static } from 'typebox';
import { DateTime, Literals as lit, Nullable, PageQuery } from '../../../core/schema.ts';
import { DataReleaseSchema, RecordCountReason } from '../segment/schemas.ts';
const SetLogic = lit('union', 'intersection');

export const SegmentSummarySchema = Type.Object({
  id: Type.String({ description: 'The segment id (spec 2 names it `id` in summaries)' }),
  name: Type.String(),
  subtype: Type.String(),
  status: Type.String(),
  record_count: Nullable(Type.Integer()),
  input_record_count: Nullable(Type.Integer()),
  match_count: Nullable(Type.Integer()),
  filter_groups: Nullable(Type.Array(Type.Object({}, { additionalProperties: true }))),
  current_version: Type.Integer(),
  record_limit: Nullable(Type.Integer()),
});

const SegmentRefSchema = Type.Object(
  { segment_id: Type.String({ minLength: 1 }), role: lit('include', 'exclude') },
  { additionalProperties: false },
);

export const AudienceSchema = Type.Object({
  audience_id: Type.String(),
  name: Type.String(),
  status: lit('active', 'archived', 'expired', 'pending', 'failed'),
  visibility: lit('org', 'private'),
  segment_refs: Type.Array(SegmentRefSchema),
  segment_ids: Type.Array(Type.String(), { description: 'Included segment ids (may name deleted segments)' }),
  excluded_segment_ids: Type.Array(Type.String()),
  segments: Type.Array(SegmentSummarySchema, { description: 'Best effort: deleted segments are skipped' }),
  excluded_segments: Type.Array(SegmentSummarySchema),
  set_logic: SetLogic,
  record_count: Nullable(Type.Integer()),
  record_count_reason: RecordCountReason,
  matched_record_count: Type.Optional(Nullable(Type.Integer({ description: 'Present only when a matched segment is included' }))),
  match_count: Nullable(Type.Integer()),
  input_record_count: Nullable(Type.Integer()),
  match_rate: Nullable(Type.Number()),
  expires_at: Type.String({ description: 'ISO date: 90-day hard expiry from creation or last refresh' }),
  snapshot_version: Type.Integer({ minimum: 1 }),
  version_created_at: DateTime(),
  campaign_id: Nullable(Type.String()),
  linked_at: Nullable(DateTime()),
  data_release: DataReleaseSchema,
  parent_audience_id: Nullable(Type.String({ description: 'Forks: the audience forked from' })),
  parent_snapshot_version: Nullable(Type.Integer({ description: 'Forks: the parent snapshot forked from' })),
  last_delivery_quote_id: Nullable(Type.String()),
  last_delivery_quote_cost_cents: Nullable(Type.Integer()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const AudienceItem = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  segment_refs: Type.Optional(
    Type.Array(SegmentRefSchema, { maxItems: 100, description: 'Takes precedence over segment_ids / excluded_segment_ids' }),
  ),
  segment_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 })),
  excluded_segment_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 })),
  set_logic: Type.Optional(SetLogic),
  visibility: Type.Optional(lit('org', 'private')),
};

export const CreateAudienceBody = Type.Object(
  { ...AudienceItem, campaign_id: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const BulkCreateBody = Type.Object(
  {
    audiences: Type.Array(
      Type.Object({ ...AudienceItem, record_count: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 25 },
    ),
    campaign_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const BulkCreateResponse = Type.Object({
  audiences: Type.Array(AudienceSchema),
  errors: Type.Array(
    Type.Object({
      index: Type.Integer(),
      name: Type.String(),
      error: Type.String(),
      message: Type.String(),
      segment_ids: Type.Optional(Type.Array(Type.String())),
    }),
    { description: 'Items not created (missing, deleted, inaccessible or archived segments)' },
  ),
});

export const ListAudiencesQuery = Type.Object(
  {
    ...PageQuery,
    include_archived: Type.Optional(Type.Boolean({ default: false })),
    campaign_id: Type.Optional(Type.String({ maxLength: 200 })),
    unlinked: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const AudienceListSchema = Type.Object({
  audiences: Type.Array(AudienceSchema),
  count: Type.Integer(),
  next_cursor: Nullable(Type.String({ description: 'Follow until null; pages may be shorter than limit' })),
});

export const PatchAudienceBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), status: Type.Optional(lit('archived', 'active')) },
  { additionalProperties: false, minProperties: 1 },
);

export const RefreshAudienceBody = Type.Object(
  {
    segment_id: Type.Optional(Type.String({ description: 'Required: the member segment to refresh' })),
    hitl: Type.Optional(Type.Boolean()),
    shard_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    compression: Type.Optional(lit('none', 'gzip')),
  },
  { additionalProperties: false },
);

export const RefreshAudienceResponse = Type.Object({
  audience_id: Type.String(),
  segment_id: Type.String(),
  version: Type.Integer({ description: 'The new snapshot_version' }),
  version_created_at: DateTime(),
  expires_at: Type.String(),
  status: lit('active', 'pending'),
  subtype: Type.String(),
  refreshed: Type.Boolean(),
  segment_refreshed: Type.Boolean({ description: 'False when the member segment had nothing new (same filters, same data release)' }),
  next_step: Type.String(),
  upload_url: Nullable(Type.String()),
  upload_urls: Nullable(Type.Array(Type.String())),
  compression: Nullable(Type.String()),
  upload_expires_at: Nullable(DateTime()),
  workflow_run_id: Nullable(Type.String()),
});

export const ForkAudienceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Default: "<parent name> (fork)"' })),
    visibility: Type.Optional(lit('org', 'private')),
    campaign_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type AudienceDoc = Static<typeof AudienceSchema>;
export type CreateAudienceInput = Static<typeof CreateAudienceBody>;
export type BulkCreateInput = Static<typeof BulkCreateBody>;
export type ListAudiencesInput = Static<typeof ListAudiencesQuery>;
export type RefreshAudienceInput = Static<typeof RefreshAudienceBody>;
export type ForkAudienceInput = Static<typeof ForkAudienceBody>;
