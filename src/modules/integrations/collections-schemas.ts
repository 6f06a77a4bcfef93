/** Schemas of integration match collections: the collection and the collection filter exactly as spec 2 states them (limits of spec 8). */
import { Type } from 'typebox';
import { DateTime, Literals, Nullable } from '../../core/schema.ts';
import { CreatedSegmentSchema } from '../segments/index.ts';

export const CollectionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const CollectionSchema = Type.Object(
  {
    collection_id: Type.String(),
    org_id: Type.String(),
    name: Type.String(),
    kind: Literals('default'),
    status: Literals('active', 'paused'),
    retention_days: Type.Literal(90),
    unique_identity_count: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'Distinct unexpired identities at the last refresh, through the privacy layer (null below the privacy floor or before the first refresh)',
      }),
    ),
    count_refreshed_at: Nullable(DateTime()),
    last_captured_at: Nullable(DateTime()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false },
);

export const CollectionListSchema = Type.Object({ collections: Type.Array(CollectionSchema) }, { additionalProperties: false });

const Ids = (max: number, description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: max, description }));

/** Spec 2 Integration collection filter (no additional properties, nothing required); an absent or empty array restricts nothing. */
export const CollectionFilterSchema = Type.Object(
  {
    providers: Ids(20, 'Providers of the capturing runs (`hubspot`, `oauth_partner`, ...); at most 20'),
    connection_ids: Ids(100, 'Connections of the capturing runs (for partner runs: the partner client id); at most 100'),
    integration_run_ids: Ids(100, 'Capturing integration runs; at most 100'),
    source_kinds: Type.Optional(Type.Array(Literals('recurring', 'batch', 'file'), { maxItems: 3, description: 'At most 3' })),
    boundary_at_from: Type.Optional(DateTime('Runs whose customer boundary was at or after this')),
    boundary_at_to: Type.Optional(DateTime('Runs whose customer boundary was at or before this')),
  },
  { additionalProperties: false },
);

export const CollectionCountSchema = Type.Object(
  {
    collection_id: Type.String(),
    unique_identity_count: Nullable(Type.Integer({ minimum: 0 })),
    count_reason: Nullable(Literals('below_privacy_floor')),
    filter: CollectionFilterSchema,
    counted_at: DateTime(),
  },
  { additionalProperties: false },
);

export const CollectionSegmentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    filter: Type.Optional(CollectionFilterSchema),
    create_audience: Type.Optional(Type.Boolean({ description: 'Default true: a wrapper audience of the segment' })),
    visibility: Type.Optional(Literals('org', 'private')),
  },
  { additionalProperties: false },
);

export const CollectionSegmentResponse = CreatedSegmentSchema;
