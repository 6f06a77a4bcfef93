/**
 * The field catalog: every customer-visible attribute of `graph.persons`. Names equal the column names;
 * ARRAY<STRING> fields are stored as BIGINT bitmasks over the vocabularies in src/graph/vocab.ts.
 */
import type { CatalogField, FieldTag, FieldType, FilterOperator } from './field-types.ts';
import {
  DWELLING_TYPES,
  EDUCATION,
  GENDERS,
  INCOME_BANDS,
  INTERESTS,
  MARITAL_STATUS,
  NET_WORTH_BANDS,
  OCCUPATION_GROUPS,
  PURCHASE_BEHAVIORS,
} from './vocab.ts';

const STRING_OPS: readonly FilterOperator[] = ['=', '!=', 'IN', 'NOT IN', 'LIKE', 'IS NULL', 'IS NOT NULL'];
const ENUM_OPS: readonly FilterOperator[] = ['=', '!=', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL'];
const NUMBER_OPS: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'BETWEEN', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL'];
const BOOL_OPS: readonly FilterOperator[] = ['=', '!=', 'IS NULL', 'IS NOT NULL'];
const ARRAY_OPS: readonly FilterOperator[] = ['ARRAY_CONTAINS', 'ARRAY_CONTAINS_ANY'];

interface Spec {
  type: FieldType;
  description: string;
  category: string;
  pii?: boolean;
  filterable?: boolean;
  enum_values?: readonly string[];
  aliases?: readonly string[];
  tags?: readonly FieldTag[];
  price?: number;
  stored_upper?: boolean;
  mask?: readonly string[];
}

function field(name: string, s: Spec): CatalogField {
  const filterable = s.filterable ?? !s.pii;
  const ops = !filterable
    ? []
    : s.type === 'ARRAY<STRING>'
      ? ARRAY_OPS
      : s.type === 'BOOLEAN'
        ? BOOL_OPS
        : s.type === 'STRING'
          ? s.enum_values
            ? ENUM_OPS
            : STRING_OPS
          : NUMBER_OPS;
  return {
    name,
    type: s.type,
    description: s.description,
    category: s.category,
    filterable,
    operators: ops,
    ...(s.enum_values ? { enum_values: s.enum_values } : {}),
    aliases: s.aliases ?? [],
    pii: s.pii ?? false,
    tags: s.tags ?? [],
    enrichment_price_cents: s.price ?? 0,
    ...(s.stored_upper ? { stored_upper: true } : {}),
    storage: s.mask ? { kind: 'bitmask', column: `${name}_mask`, values: s.mask } : { kind: 'column', column: name },
  };
}

const id = (type: FieldType, description: string, extra: Partial<Spec> = {}): Spec => ({
  type,
  description,
  category: 'identity',
  pii: true,
  filterable: false,
  tags: ['enrichment'],
  stored_upper: type === 'STRING',
  ...extra,
});
const demo = (type: FieldType, description: string, extra: Partial<Spec> = {}): Spec => ({
  type,
  description,
  category: 'demographics',
  tags: ['audience', 'feature_store', 'enrichment'],
  price: 1,
  ...extra,
});

export const CATALOG_FIELDS: readonly CatalogField[] = [
  field('first_name', id('STRING', 'First (given) name, upper case.')),
  field('middle_name', id('STRING', 'Middle name, upper case.')),
  field('last_name', id('STRING', 'Last name (surname), upper case.')),
  field('name_suffix', id('STRING', 'Generational suffix: JR, SR, II, III, IV.')),
  field('nickname', id('STRING', 'Name in everyday use, when different from the first name.')),
  field('dob', id('DATE', 'Date of birth.')),
  field('address_1', id('STRING', 'Current residential street line, USPS abbreviations.')),
  field('address_2', id('STRING', 'Current secondary unit (APT 4B).')),
  field('work_address_1', id('STRING', 'Work street line.', { category: 'work' })),
  field('work_address_2', id('STRING', 'Work secondary unit.', { category: 'work' })),
  field('lat', id('NUMBER', 'Latitude of the current residence (approximate).', { category: 'geography', stored_upper: false })),
  field('lon', id('NUMBER', 'Longitude of the current residence (approximate).', { category: 'geography', stored_upper: false })),
  field('city', {
    type: 'STRING',
    description: 'USPS preferred city of the current residence.',
    category: 'geography',
    tags: ['audience', 'enrichment'],
    stored_upper: true,
  }),
  field('state', {
    type: 'STRING',
    description: 'Two-letter state code of the current residence.',
    category: 'geography',
    tags: ['audience', 'feature_store', 'enrichment'],
    stored_upper: true,
  }),
  field('zip5', {
    type: 'STRING',
    description: '5-digit ZIP code of the current residence.',
    category: 'geography',
    aliases: ['zip', 'zip_code', 'postal_code'],
    tags: ['audience', 'enrichment'],
  }),
  field('zip3', {
    type: 'STRING',
    description: 'First three digits of the ZIP code (sectional center).',
    category: 'geography',
    tags: ['audience', 'feature_store'],
  }),
  field('work_city', {
    type: 'STRING',
    description: 'City of the work address.',
    category: 'work',
    tags: ['audience'],
    stored_upper: true,
  }),
  field('work_state', {
    type: 'STRING',
    description: 'State of the work address.',
    category: 'work',
    tags: ['audience'],
    stored_upper: true,
  }),
  field('work_zip5', { type: 'STRING', description: 'ZIP code of the work address.', category: 'work', tags: ['audience'] }),
  field('gender', demo('STRING', 'Gender: M or F.', { enum_values: GENDERS, stored_upper: true, price: 0 })),
  field('age', demo('INTEGER', 'Age in whole years as of the release date.', { price: 0 })),
  field('moved_in', demo('DATE', 'Date the person moved into the current residence.', { category: 'residence' })),
  field('length_of_residence', demo('INTEGER', 'Whole years at the current residence.', { category: 'residence' })),
  field('household_size', demo('INTEGER', 'Number of people in the household (1-6).', { category: 'household' })),
  field('presence_of_children', demo('BOOLEAN', 'Someone under 18 lives in the household.', { category: 'household' })),
  field('dwelling_type', demo('STRING', 'Single-family or multi-family dwelling.', { category: 'residence', enum_values: DWELLING_TYPES })),
  field('homeowner', demo('BOOLEAN', 'The household owns its home.', { category: 'residence' })),
  field('home_value', demo('INTEGER', 'Estimated home value in USD; null for renters.', { category: 'residence', price: 2 })),
  field('household_income', demo('INTEGER', 'Estimated household income in USD.', { category: 'financial', price: 2 })),
  field('income_band', demo('STRING', 'Household income band.', { category: 'financial', enum_values: INCOME_BANDS })),
  field('net_worth_band', demo('STRING', 'Estimated net worth band.', { category: 'financial', enum_values: NET_WORTH_BANDS, price: 2 })),
  field('education', demo('STRING', 'Highest education level (adults).', { enum_values: EDUCATION })),
  field('marital_status', demo('STRING', 'Marital status.', { enum_values: MARITAL_STATUS })),
  field('occupation_group', demo('STRING', 'Occupation group.', { enum_values: OCCUPATION_GROUPS })),
  field('has_email', demo('BOOLEAN', 'At least one email address is on file.', { category: 'contactability', price: 0 })),
  field('has_phone', demo('BOOLEAN', 'At least one phone number is on file.', { category: 'contactability', price: 0 })),
  field(
    'interests',
    demo('ARRAY<STRING>', 'Modelled interests and affinities.', {
      category: 'interests',
      enum_values: INTERESTS,
      mask: INTERESTS,
      price: 3,
    }),
  ),
  field(
    'purchase_behaviors',
    demo('ARRAY<STRING>', 'Modelled purchase behaviours.', {
      category: 'purchase',
      enum_values: PURCHASE_BEHAVIORS,
      mask: PURCHASE_BEHAVIORS,
      price: 3,
    }),
  ),
];
