/** A hand-made catalog exercising every field type and both storage kinds (not the real catalog). */
import type { CatalogField, FieldType, FilterOperator } from '../../../src/graph/field-types.ts';

const ORDERED: FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'BETWEEN', 'IS NULL', 'IS NOT NULL'];
const TEXT: FilterOperator[] = [...ORDERED, 'LIKE'];
const EQUALITY: FilterOperator[] = ['=', '!=', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL'];
const ARRAY: FilterOperator[] = ['ARRAY_CONTAINS', 'ARRAY_CONTAINS_ANY', 'IS NULL', 'IS NOT NULL'];

export const INTEREST_VOCAB = ['Dogs', 'Cats', 'Golf', 'Yoga', 'Straße', 'École'] as const;

function field(name: string, type: FieldType, operators: FilterOperator[], extra: Partial<CatalogField> = {}): CatalogField {
  return {
    name,
    type,
    operators,
    description: `${name} (fixture)`,
    category: 'test',
    filterable: operators.length > 0,
    aliases: [],
    pii: false,
    tags: ['audience'],
    enrichment_price_cents: 0,
    storage: { kind: 'column', column: `${name}_col` },
    ...extra,
  };
}

export const CATALOG: readonly CatalogField[] = [
  field('first_name', 'STRING', TEXT),
  field('city', 'STRING', [...EQUALITY, 'LIKE'], { stored_upper: true }),
  field('state', 'STRING', EQUALITY, { stored_upper: true, enum_values: ['CA', 'NV', 'NY', 'TX', 'WA'] }),
  field('zip5', 'STRING', TEXT, { aliases: ['zip', 'zip_code', 'postal_code'] }),
  field('zip3', 'STRING', EQUALITY),
  field('age', 'INTEGER', ORDERED),
  field('income', 'NUMBER', ORDERED),
  field('birth_date', 'DATE', ORDERED),
  field('is_homeowner', 'BOOLEAN', EQUALITY),
  field('interests', 'ARRAY<STRING>', ARRAY, { storage: { kind: 'bitmask', column: 'interests_mask', values: INTEREST_VOCAB } }),
  field('tags', 'ARRAY<STRING>', ARRAY),
  field('gender', 'STRING', EQUALITY, { enum_values: ['Male', 'Female', 'Unknown'] }),
  field('segment_code', 'STRING', EQUALITY, { enum_values: ['A1', 'a1', 'B2'] }),
  // A catalog mistake: LIKE listed on an INTEGER. The validator must not let it through.
  field('household_size', 'INTEGER', [...ORDERED, 'LIKE']),
  field('email', 'STRING', [], { pii: true }),
];
