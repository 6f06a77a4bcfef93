/** Operations of the catalog area: the field catalog and the current data release (spec 4.2, 4.7, 4.11). */
import { defineOperation, type Operation } from '../../core/operation.ts';
import type { DataReleaseService } from './data-release.ts';
import { CatalogResponseSchema, DataReleaseSchema } from './schemas.ts';
import { catalogUnavailable, isGroupable, type CatalogService } from './service.ts';

const tags = ['Discovery'];

export function catalogOperations(deps: { catalog: CatalogService; dataRelease: DataReleaseService }): Operation[] {
  return [
    defineOperation({
      id: 'getFieldCatalog',
      method: 'GET',
      path: '/v1/catalog/fields',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Field catalog: every attribute you can filter, group, sample or enrich',
      description:
        'Each field with its type, operators, closed vocabulary, aliases, whether it is personally identifying or groupable, and its ' +
        'per-record enrichment price (integer cents and USD); plus the standard templates (`standard_iag`, `standard_enrichment`). ' +
        'Free: catalog reads are not charged to the compute budget. 502 FILTER_CATALOG_UNAVAILABLE when the catalog cannot be read.',
      input: {},
      status: 200,
      responses: { 200: CatalogResponseSchema },
      errors: ['FILTER_CATALOG_UNAVAILABLE'],
      agent: { tool: 'search_field_catalog' },
      examples: [{ name: 'catalog', summary: 'The whole catalog', request: {}, response: { status: 200 } }],
      handler: async () => {
        let catalog;
        try {
          catalog = await deps.catalog.getCatalog();
        } catch (err) {
          throw catalogUnavailable(err);
        }
        return {
          fields: catalog.fields.map((f) => ({
            name: f.name,
            type: f.type,
            description: f.description,
            category: f.category,
            filterable: f.filterable,
            operators: [...f.operators],
            ...(f.enum_values ? { enum_values: [...f.enum_values] } : {}),
            aliases: [...f.aliases],
            pii: f.pii,
            groupable: isGroupable(f),
            tags: [...f.tags],
            enrichment_price_cents: f.enrichment_price_cents,
            enrichment_price_usd: f.enrichment_price_cents / 100,
          })),
          templates: catalog.templates.map((t) => ({ ...t, fields: [...t.fields] })),
          data_release: { major: catalog.release.major, minor: catalog.release.minor },
        };
      },
    }),

    defineOperation({
      id: 'getDataRelease',
      method: 'GET',
      path: '/v1/data-release',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Current data release',
      description:
        'Served from a snapshot refreshed about every 15 minutes. 503 DATA_RELEASE_UNAVAILABLE (with `next_step`) until a first release is published.',
      input: {},
      status: 200,
      responses: { 200: DataReleaseSchema },
      errors: ['DATA_RELEASE_UNAVAILABLE'],
      examples: [
        {
          name: 'release',
          summary: 'The current release',
          request: {},
          response: { status: 200, body: { current_release_major: 1, current_release_minor: 0, as_of: '2026-11-23T12:00:00.000Z' } },
        },
      ],
      handler: async () => deps.dataRelease.current(),
    }),
  ];
}
