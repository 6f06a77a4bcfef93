import { Type } from 'typebox';
import { DateTime, Literals } from '../../core/schema.ts';

const FieldTypeSchema = Literals('STRING', 'INTEGER', 'NUMBER', 'BOOLEAN', 'DATE', 'ARRAY<STRING>');

/** One catalog entry. Whitelisted: storage details (columns, bitmask layout) never leave the service. */
export const CatalogFieldSchema = Type.Object(
  {
    name: Type.String({ description: 'Canonical name used in filters, group_by and lookup fields' }),
    type: FieldTypeSchema,
    description: Type.String(),
    category: Type.String(),
    filterable: Type.Boolean(),
    operators: Type.Array(Type.String(), { description: 'Operators allowed on this field (empty when not filterable)' }),
    enum_values: Type.Optional(Type.Array(Type.String(), { description: 'Closed vocabulary, when the field has one' })),
    aliases: Type.Array(Type.String(), { description: 'Other input names accepted (e.g. zip for zip5); responses use the canonical name' }),
    pii: Type.Boolean({ description: 'Personally identifying: never returned by discovery lookup and never usable as group_by' }),
    groupable: Type.Boolean({ description: 'Usable as discovery `group_by`' }),
    tags: Type.Array(Type.String()),
    enrichment_price_cents: Type.Integer({ description: 'Per-record enrichment surcharge in integer US cents (0 = included)' }),
    enrichment_price_usd: Type.Number({ description: 'The same price in US dollars' }),
  },
  { $id: 'CatalogField' },
);

export const CatalogTemplateSchema = Type.Object(
  {
    template_id: Type.Union([Type.Literal('standard_iag'), Type.Literal('standard_enrichment')]),
    name: Type.String(),
    description: Type.String(),
    fields: Type.Array(Type.String(), { description: 'Catalog field names the template selects' }),
  },
  { $id: 'CatalogTemplate' },
);

export const CatalogResponseSchema = Type.Object({
  fields: Type.Array(CatalogFieldSchema),
  templates: Type.Array(CatalogTemplateSchema),
  data_release: Type.Object({ major: Type.Integer(), minor: Type.Integer() }),
});

export const DataReleaseSchema = Type.Object(
  {
    current_release_major: Type.Integer({
      description: 'Full-warehouse-rebuild version; a delivered identity whose stored major equals it is unchanged since delivery',
    }),
    current_release_minor: Type.Integer({ description: 'Incremental version' }),
    as_of: DateTime('When this cached snapshot was taken; it refreshes about every 15 minutes'),
  },
  { $id: 'DataRelease' },
);
