/**
 * Operations of integration match collections (spec 2, 3, 8; ours: decision 050): list, get, pause,
 * resume, count with the Integration collection filter, and a matched segment made from a collection.
 */
import { callerOf, defineOperation, reply, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import type { CollectionService } from './collections.ts';
import {
  CollectionCountSchema,
  CollectionFilterSchema,
  CollectionListSchema,
  CollectionParams,
  CollectionSchema,
  CollectionSegmentBody,
  CollectionSegmentResponse,
} from './collections-schemas.ts';

const tags = ['Integrations'];
const params = { id: EXAMPLE.integrationCollectionId };

export function collectionOperations(deps: { collections: CollectionService }): Operation[] {
  const { collections } = deps;
  const move = (action: 'pause' | 'resume') =>
    defineOperation({
      id: `${action}IntegrationCollection`,
      method: 'POST',
      path: `/v1/integration-collections/{id}/${action}`,
      tags,
      access: 'creator',
      effect: 'write',
      agent: false,
      summary: action === 'pause' ? 'Pause an integration match collection' : 'Resume a paused integration match collection',
      description:
        action === 'pause'
          ? 'active -> paused: runs that complete while paused add no identity; captured identities stay until they expire. 409 INVALID_STATUS_TRANSITION when already paused. Free.'
          : 'paused -> active: the next completed runs are captured again (runs completed while paused are not). 409 INVALID_STATUS_TRANSITION when active. Free.',
      input: { params: CollectionParams },
      status: 200,
      responses: { 200: CollectionSchema },
      errors: ['INTEGRATION_COLLECTION_NOT_FOUND', 'INVALID_STATUS_TRANSITION'],
      // Declared pause first, so the example runs pause then resume.
      examples: [{ name: action, summary: action === 'pause' ? 'Pause' : 'Resume', request: { params }, response: { status: 200 } }],
      handler: async (ctx, { params: p }) =>
        action === 'pause' ? collections.pause(callerOf(ctx).orgId, p.id) : collections.resume(callerOf(ctx).orgId, p.id),
    });

  return [
    defineOperation({
      id: 'listIntegrationCollections',
      method: 'GET',
      path: '/v1/integration-collections',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: "List the organization's integration match collections",
      description:
        "The default collection (made on first use): identities captured from the organization's integration runs' matches, kept 90 days. " +
        'unique_identity_count is refreshed by a job every 15 minutes and goes through the privacy layer. Free.',
      input: {},
      status: 200,
      responses: { 200: CollectionListSchema },
      errors: [],
      agent: { tool: 'list_integration_collections' },
      examples: [{ name: 'list', summary: 'Collections', request: {}, response: { status: 200 } }],
      handler: async (ctx) => collections.list(callerOf(ctx).orgId),
    }),

    defineOperation({
      id: 'getIntegrationCollection',
      method: 'GET',
      path: '/v1/integration-collections/{id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'Get an integration match collection',
      description: "Another organization's collection is 404 INTEGRATION_COLLECTION_NOT_FOUND. Free.",
      input: { params: CollectionParams },
      status: 200,
      responses: { 200: CollectionSchema },
      errors: ['INTEGRATION_COLLECTION_NOT_FOUND'],
      agent: { tool: 'get_integration_collection' },
      examples: [{ name: 'get', summary: 'A collection', request: { params }, response: { status: 200 } }],
      handler: async (ctx, { params: p }) => collections.get(callerOf(ctx).orgId, p.id),
    }),

    move('pause'),
    move('resume'),

    defineOperation({
      id: 'countIntegrationCollection',
      method: 'POST',
      path: '/v1/integration-collections/{id}/count',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: "Count a collection's identities selected by an Integration collection filter",
      description:
        'The body is the Integration collection filter (spec 2; arrays at most providers 20, connection_ids 100, integration_run_ids 100, ' +
        'source_kinds 3; boundary_at_from <= boundary_at_to, else 400 INVALID_COLLECTION_FILTER). Counts distinct unexpired identities now, ' +
        'through the privacy layer (null with count_reason below_privacy_floor under the floor). Free.',
      input: { params: CollectionParams, body: CollectionFilterSchema },
      status: 200,
      responses: { 200: CollectionCountSchema },
      errors: ['INTEGRATION_COLLECTION_NOT_FOUND', 'INVALID_COLLECTION_FILTER'],
      agent: { tool: 'count_integration_collection' },
      examples: [
        {
          name: 'count',
          summary: 'File runs of one provider in a date range',
          request: {
            params,
            body: { source_kinds: ['file'], boundary_at_from: '2026-01-01T00:00:00Z', boundary_at_to: '2026-12-31T23:59:59Z' },
          },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params: p, body }) => collections.count(callerOf(ctx).orgId, p.id, body),
    }),

    defineOperation({
      id: 'createIntegrationCollectionSegment',
      method: 'POST',
      path: '/v1/integration-collections/{id}/segments',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Create a matched segment from a collection',
      description:
        'Members: the distinct unexpired identities the filter selects now (an active matched segment, 90-day expiry, and a wrapper audience ' +
        'unless create_audience is false). Its record_count is graph-derived: the collection count of the same filter (privacy layer). ' +
        '422 INTEGRATION_COLLECTION_SELECTION_EMPTY when the filter selects nobody. Creating is free; deliveries bill as usual.',
      input: { params: CollectionParams, body: CollectionSegmentBody },
      status: 201,
      responses: { 201: CollectionSegmentResponse },
      errors: [
        'INTEGRATION_COLLECTION_NOT_FOUND',
        'INVALID_COLLECTION_FILTER',
        'INTEGRATION_COLLECTION_SELECTION_EMPTY',
        'DATA_RELEASE_UNAVAILABLE',
      ],
      agent: false,
      examples: [
        {
          name: 'empty',
          summary: 'A filter selecting nobody is refused',
          request: { params, body: { name: 'Partner matches', filter: { integration_run_ids: [EXAMPLE.integrationRunId] } } },
          response: { status: 422 },
        },
      ],
      handler: async (ctx, { params: p, body }) => reply(201, await collections.createSegment(callerOf(ctx), p.id, body)),
    }),
  ];
}
