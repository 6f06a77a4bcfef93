import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PageQuery } from '../../../core/schema.ts';
import { SegmentSummarySchema } from '../audience/schemas.ts';

const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);

export const CampaignAudienceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([
    Type.Literal('active'),
    Type.Literal('archived'),
    Type.Literal('expired'),
    Type.Literal('pending'),
    Type.Literal('failed'),
  ]),
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

export const CampaignAudienceParams = Type.Object({ id: Type.String({ maxLength: 200 }), audience_id: Type.String({ maxLength: 200 }) });
export const ListCampaignsQuery = Type.Object(
  { ...PageQuery, include_archived: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export const CampaignListSchema = Type.Object({
  campaigns: Type.Array(CampaignSchema),
  count: Type.Integer(),
  next_cursor: Nullable(Type.String()),
});
export type CampaignDoc = Static<typeof CampaignSchema>;
export type CampaignAudienceDoc = Static<typeof CampaignAudienceSchema>;
