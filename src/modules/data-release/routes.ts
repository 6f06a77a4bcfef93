import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DateTime, errorResponses } from '../../http/schemas.ts';
import type { DataReleaseService } from './service.ts';

const DataReleaseSchema = Type.Object(
  {
    current_release_major: Type.Integer({ description: 'Full-warehouse-rebuild version; a delivered identity whose stored major equals it is unchanged since delivery' }),
    current_release_minor: Type.Integer({ description: 'Incremental version' }),
    as_of: DateTime('When this cached snapshot was taken; it refreshes about every 15 minutes'),
  },
  { $id: 'DataRelease' },
);

export function dataReleaseRoutes(deps: { dataRelease: DataReleaseService }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/data-release',
      {
        config: { scope: 'discovery' },
        schema: {
          tags: ['Discovery'],
          summary: 'Current data release',
          description: 'Served from a snapshot refreshed about every 15 minutes. 503 DATA_RELEASE_UNAVAILABLE (with `next_step`) until a first release is published.',
          response: { 200: DataReleaseSchema, ...errorResponses([503]) },
        },
      },
      async () => deps.dataRelease.current(),
    );
  };
}
