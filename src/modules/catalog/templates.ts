/** Field templates: named field lists a customer can request in one word. */
import type { CatalogTemplate } from '../../graph/index.ts';
import { CATALOG_FIELDS } from '../../graph/index.ts';

export const CATALOG_TEMPLATES: readonly CatalogTemplate[] = [
  {
    template_id: 'standard_iag',
    name: 'Standard identity and contact',
    description: 'Name and current postal address fields of the matched person.',
    fields: ['first_name', 'middle_name', 'last_name', 'name_suffix', 'address_1', 'address_2', 'city', 'state', 'zip5', 'dob'],
  },
  {
    template_id: 'standard_enrichment',
    name: 'Standard demographic enrichment',
    description: 'Every field tagged for audiences or the feature store (spec 4.5: the default enrichment set); never identity fields.',
    fields: CATALOG_FIELDS.filter((f) => !f.pii && (f.tags.includes('audience') || f.tags.includes('feature_store'))).map((f) => f.name),
  },
];
