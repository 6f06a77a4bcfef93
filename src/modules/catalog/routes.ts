import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { CatalogFieldSchema, CatalogResponseSchema, CatalogTemplateSchema } from './schemas.ts';
import { catalogUnavailable, type CatalogService } from './service.ts';
import type { CatalogField } from './types.ts';

/** Whether discovery may group by the field: a plain column and not PII (see discovery/service.ts). */
export function isGroupable(f: CatalogField): boolean {
  return !f.pii && f.storage.kind === 'column' && f.type !== 'ARRAY<STRING>';
}

export function catalogRoutes(deps: { catalog: CatalogService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(CatalogFieldSchema);
    app.addSchema(CatalogTemplateSchema);
    app.get(
      '/v1/catalog/fields',
      {
        config: { scope: 'discovery' },
        schema: {
          tags: ['Discovery'],
          summary: 'Field catalog: every attribute you can filter, group, sample or enrich',
          description: 'Includes the standard templates. Prices are per record, in integer cents and in USD. 502 FILTER_CATALOG_UNAVAILABLE when the catalog cannot be read.',
          response: { 200: CatalogResponseSchema, ...errorResponses([502]) },
        },
      },
      async () => {
        let catalog;
        try {
          catalog = await deps.catalog.getCatalog();
        } catch (err) {
          throw catalogUnavailable(err);
        }
        return {
          fields: catalog.fields.map((f) => ({
            name: f.name, type: f.type, description: f.description, category: f.category, filterable: f.filterable,
            operators: [...f.operators], ...(f.enum_values ? { enum_values: [...f.enum_values] } : {}),
            aliases: [...f.aliases], pii: f.pii, groupable: isGroupable(f), tags: [...f.tags],
            enrichment_price_cents: f.enrichment_price_cents, enrichment_price_usd: f.enrichment_price_cents / 100,
          })),
          templates: catalog.templates.map((t) => ({ ...t, fields: [...t.fields] })),
          data_release: { major: catalog.release.major, minor: catalog.release.minor },
        };
      },
    );
  };
}
