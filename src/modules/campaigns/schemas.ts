import { Type } from '@fastify/type-provider-typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { SegmentSummarySchema } from '../audiences/schemas.ts';

const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);

export const CampaignAudienceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('archived'), Type.Literal('expired'), Type.Literal('pending'), Type.Literal('failed')]),
  record_count: Nullable(Type.Integer()),
  segment_ids: Type.Array(Type.String()),
  excluded_segment_ids: Type.Array(Type.String()),
  segments: Type.Array(SegmentSummarySchema),
  excluded_segments: Type.Array(SegmentSummarySchema),
  set_logic: Type.String(),
  snapshot_version: Type.Integer(),
  parent_audience_id: Nullable(Type.String()),
  expires_at: Type.String(),
  linked_at: DateTime(),
});

export const CampaignSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  status: Status,
  audiences: Type.Array(CampaignAudienceSchema, { description: 'Expanded on single GET (newest link first); empty on list' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const CreateCampaignBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

export const PatchCampaignBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    status: Type.Optional(Status),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CampaignIdParams = Type.Object({ id: Type.String() });
export const CampaignAudienceParams = Type.Object({ id: Type.String(), audience_id: Type.String() });
export const ListCampaignsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String()),
  include_archived: Type.Optional(Type.Boolean({ default: false })),
});
export const CampaignListSchema = Type.Object({ campaigns: Type.Array(CampaignSchema), count: Type.Integer(), next_cursor: Nullable(Type.String()) });
