import { Type, type Static, type TSchema } from 'typebox';
import { Nullable } from '../../core/schema.ts';
import type { CatalogField } from '../../graph/index.ts';

const Id = Type.String({ minLength: 1, maxLength: 200 });

/** The five input forms of spec 4.2 (exactly one). Filters are checked by the filter validator, which reports spec issue codes. */
const InputProperties = {
  filters: Type.Optional(Type.Unknown({ description: 'Flat array of filter conditions, ANDed (spec 2 "Filter condition")' })),
  filter_groups: Type.Optional(
    Type.Unknown({ description: 'Array of filter groups joined by their combinators; AND binds tighter than OR' }),
  ),
  segment_id: Type.Optional(Id),
  audience_id: Type.Optional(Id),
  segment_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true })),
  set_logic: Type.Optional(
    Type.Union([Type.Literal('union'), Type.Literal('intersection')], { description: 'With segment_ids; default union' }),
  ),
  excluded_segment_ids: Type.Optional(
    Type.Array(Id, { maxItems: 50, uniqueItems: true, description: 'With segment_ids; always subtracted' }),
  ),
};

export const CountBody = Type.Object(
  {
    ...InputProperties,
    group_by: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'One groupable, non-PII catalog field' })),
  },
  { additionalProperties: false },
);

export const LookupBody = Type.Object(
  {
    ...InputProperties,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 10 })),
    fields: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 30,
      uniqueItems: true,
      description: 'Non-PII catalog fields',
    }),
  },
  { additionalProperties: false },
);

const GroupValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const Group = Type.Object({ group_value: GroupValue, count: Type.Integer() });
const Buckets = Type.Object({
  groups: Type.Array(Group, { description: 'Buckets that pass the privacy floor, each noised on its own (decision 015), largest first' }),
  suppressed_groups: Type.Integer({ description: 'Buckets below the privacy floor, removed (value and count not shown)' }),
  truncated_groups: Type.Optional(Type.Integer()),
});
const Release = Type.Object({ major: Type.Integer(), minor: Type.Integer() });

export const CountResponse = Type.Object({
  count: Type.Integer({
    description:
      'Persons matching, through the privacy layer: the true count plus small sticky noise (the same question always gets the same answer); never below the privacy floor (422 instead)',
  }),
  matched_count: Type.Optional(
    Nullable(Type.Integer({ description: 'Of `count`, persons in a matched segment of the composition; null below the floor' })),
  ),
  group_by: Type.Optional(Type.String()),
  groups: Type.Optional(Type.Array(Group)),
  suppressed_groups: Type.Optional(Type.Integer()),
  truncated_groups: Type.Optional(Type.Integer()),
  breakdowns: Type.Optional(
    Type.Object(
      { gender: Buckets, age_band: Buckets, income_band: Buckets, state: Buckets },
      {
        description: 'Default breakdowns (no group_by; raw filters, one filter segment or an audience). state: top 10 plus `other`.',
      },
    ),
  ),
  privacy_floor: Type.Integer(),
  estimated_bytes_scanned: Type.Integer({ description: 'Charged to the hourly compute budget' }),
  data_release: Release,
});

/** Lookup rows: one optional property per non-PII catalog field and nothing else. */
export function lookupResponse(fields: readonly CatalogField[]): TSchema {
  const props: Record<string, TSchema> = {};
  for (const f of fields) if (!f.pii) props[f.name] = Type.Optional(Type.Unknown());
  return Type.Object({
    rows: Type.Array(Type.Object(props, { additionalProperties: false }), {
      description:
        'Masked rows: identifying values generalized (age, home value, income and years at residence in bands, ZIP as NNNxx, dates as the year); ' +
        "only from OR branches that pass the privacy floor on their own; each row's combination of values shared by at least k persons",
    }),
    total_matched: Type.Integer({ description: 'Persons matching, through the privacy layer (noised like count)' }),
    available_fields: Type.Array(Type.String()),
    data_release: Release,
  });
}

export type CountResult = Static<typeof CountResponse>;
