/**
 * Operations of the integrations area: connections (connect through the provider's OAuth, list,
 * DELETE /v1/connections/{provider} of spec 4.8) and integration runs (create, list, get, cancel).
 */
import { callerOf, defineOperation, reply, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import type { ConnectionService } from './connections.ts';
import type { RunService } from './runs.ts';
import {
  AuthorizationSchema,
  CompleteBody,
  ConnectionListSchema,
  ConnectionSchema,
  CreateRunBody,
  DisconnectBody,
  DisconnectedSchema,
  ProviderParams,
  RecordListQuery,
  RunFileSchema,
  RunListQuery,
  RunListSchema,
  RunParams,
  RunRecordListSchema,
  RunSchema,
} from './schemas.ts';

const tags = ['Integrations'];
const actor = (ctx: Parameters<typeof callerOf>[0]) => {
  const c = callerOf(ctx);
  return { orgId: c.orgId, userId: c.userId };
};
const RUN_EXAMPLE = { params: { id: EXAMPLE.integrationRunId } };

export function integrationOperations(deps: { connections: ConnectionService; runs: RunService }): Operation[] {
  const { connections, runs } = deps;
  return [
    defineOperation({
      id: 'authorizeConnection',
      method: 'POST',
      path: '/v1/connections/{provider}/authorize',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Start connecting a provider account (owners and admins)',
      description:
        "Returns the provider's consent page and a one-time state (valid 10 minutes). After consent the provider redirects to the " +
        'configured redirect URI with `code` and `state`; finish with POST /v1/connections/{provider}. Free.',
      input: { params: ProviderParams },
      status: 200,
      responses: { 200: AuthorizationSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'PROVIDER_NOT_AVAILABLE'],
      examples: [{ name: 'hubspot', summary: 'Connect HubSpot', request: { params: { provider: 'hubspot' } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => connections.authorize(actor(ctx), params.provider),
    }),

    defineOperation({
      id: 'completeConnection',
      method: 'POST',
      path: '/v1/connections/{provider}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Finish connecting a provider account (owners and admins)',
      description:
        "Exchanges the provider's authorization code for tokens (stored sealed), reads which provider account they belong to and " +
        'creates the connection. One live connection per provider per organization; a provider account connected to another organization ' +
        'is refused until it is disconnected there. Free.',
      input: { params: ProviderParams, body: CompleteBody },
      status: 201,
      responses: { 201: ConnectionSchema },
      errors: [
        'OWNER_OR_ADMIN_REQUIRED',
        'PROVIDER_NOT_AVAILABLE',
        'INTEGRATION_AUTHORIZATION_INVALID',
        'CONNECTION_EXISTS',
        'CONNECTION_ACCOUNT_IN_USE',
        'PROVIDER_UNAVAILABLE',
      ],
      examples: [
        {
          name: 'unknown-state',
          summary: 'A state that was never issued is refused',
          request: { params: { provider: 'hubspot' }, body: { code: 'code-from-redirect', state: 'never-issued' } },
          response: { status: 400 },
        },
      ],
      handler: async (ctx, { params, body }) => reply(201, await connections.complete(actor(ctx), params.provider, body)),
    }),

    defineOperation({
      id: 'listConnections',
      method: 'GET',
      path: '/v1/connections',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: false,
      summary: "List the organization's provider connections",
      description: 'Live connections, one per provider at most. Tokens are never shown. Free.',
      input: {},
      status: 200,
      responses: { 200: ConnectionListSchema },
      errors: [],
      examples: [{ name: 'list', summary: 'Connections', request: {}, response: { status: 200 } }],
      handler: async (ctx) => connections.list(callerOf(ctx).orgId),
    }),

    defineOperation({
      id: 'disconnectProvider',
      method: 'DELETE',
      path: '/v1/connections/{provider}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Disconnect a provider (owners and admins)',
      description:
        '`app_data_policy` `retain` leaves the data written to the provider and stops future runs; `remove` first removes what this ' +
        'service created at the provider (its enrichment properties and the lists activation runs created) and disconnects only if that succeeds (502 PROVIDER_CLEANUP_FAILED leaves ' +
        'the connection connected). The tokens are revoked and deleted. Runs, usage and licenses stay with the organization; the provider ' +
        'account may then connect to another organization under a new connection id. Free.',
      input: { params: ProviderParams, body: DisconnectBody },
      status: 200,
      responses: { 200: DisconnectedSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'PROVIDER_NOT_AVAILABLE', 'CONNECTION_NOT_FOUND', 'PROVIDER_CLEANUP_FAILED'],
      examples: [
        {
          name: 'retain',
          summary: 'Disconnect, leaving provider data',
          request: { params: { provider: 'hubspot' }, body: { app_data_policy: 'retain' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => connections.disconnect(actor(ctx), params.provider, body.app_data_policy),
    }),

    defineOperation({
      id: 'createIntegrationRun',
      method: 'POST',
      path: '/v1/integration-runs',
      tags,
      access: 'creator',
      effect: 'spend',
      agent: false,
      summary: 'Start an integration run (batch enrichment, file enrichment, ingest, activation, export)',
      description:
        "Pulls the connection's contacts and matches them; then `batch_enrichment` writes the selected catalog fields back to the " +
        'provider as properties, `file_enrichment` writes them to a CSV file (GET /v1/integration-runs/{id}/file) and `ingest` keeps the ' +
        'matched identities with them as records (GET /v1/integration-runs/{id}/records). `activation` and `export` push the audience ' +
        '`audience_id` through a delivery of it: its members that are contacts at the provider go into a list the run creates with the ' +
        'selected fields (activation: a HubSpot static list, a Mailchimp audience), or get the selected fields written (export); the ' +
        'delivery is their charge (none with a partner billing source). Runs in the background (poll GET /v1/integration-runs/{id}). With `billing_source` `native` (default) it is billed ' +
        "once, when settled: matched contacts at the contract's match rate plus, per contact written (or output with a value), the " +
        "enrichment-field rate of each selected field, less the contract's usage discount; with a partner billing source it is not billed here. Counts and states: docs/decisions/038-integration-runs.md.",
      input: { body: CreateRunBody },
      status: 202,
      responses: { 202: RunSchema },
      errors: ['CONNECTION_NOT_FOUND', 'PROVIDER_NOT_AVAILABLE', 'UNKNOWN_FIELD', 'INVALID_REQUEST', 'AUDIENCE_NOT_FOUND'],
      examples: [
        {
          name: 'enrich',
          summary: 'Enrich HubSpot contacts with age and income band',
          request: { body: { provider: 'hubspot', kind: 'batch_enrichment', selected_fields: ['age', 'income_band'] } },
          response: { status: 202 },
        },
      ],
      handler: async (ctx, { body }) => reply(202, await runs.create(actor(ctx), body)),
    }),

    defineOperation({
      id: 'listIntegrationRuns',
      method: 'GET',
      path: '/v1/integration-runs',
      tags,
      access: 'discovery',
      effect: 'read',
      agent: false,
      summary: 'List integration runs',
      description: 'Newest first, with has_more and next_cursor. Free.',
      input: { query: RunListQuery },
      status: 200,
      responses: { 200: RunListSchema },
      errors: ['INVALID_CURSOR'],
      examples: [{ name: 'list', summary: 'Recent runs', request: { query: { limit: 10 } }, response: { status: 200 } }],
      handler: async (ctx, { query }) => runs.list(callerOf(ctx).orgId, query),
    }),

    defineOperation({
      id: 'getIntegrationRun',
      method: 'GET',
      path: '/v1/integration-runs/{id}',
      tags,
      access: 'discovery',
      effect: 'read',
      agent: false,
      summary: 'Get an integration run',
      description: 'Its status, counts and failure, if any. Free.',
      input: { params: RunParams },
      status: 200,
      responses: { 200: RunSchema },
      errors: ['INTEGRATION_RUN_NOT_FOUND'],
      examples: [{ name: 'get', summary: 'One run', request: RUN_EXAMPLE, response: { status: 200 } }],
      handler: async (ctx, { params }) => runs.get(callerOf(ctx).orgId, params.id),
    }),

    defineOperation({
      id: 'getIntegrationRunFile',
      method: 'GET',
      path: '/v1/integration-runs/{id}/file',
      tags,
      access: 'discovery',
      effect: 'read',
      agent: false,
      summary: 'Download the enriched file of a file_enrichment run',
      description:
        'CSV: provider_contact_id, iag_person_id, match_level, then the selected fields, one row per matched contact with a value. ' +
        'Available once the run is completed (409 INTEGRATION_RUN_OUTPUT_UNAVAILABLE before, or for another kind). Free.',
      input: { params: RunParams },
      status: 200,
      responses: { 200: RunFileSchema },
      errors: ['INTEGRATION_RUN_NOT_FOUND', 'INTEGRATION_RUN_OUTPUT_UNAVAILABLE'],
      examples: [{ name: 'file', summary: 'The enriched file', request: RUN_EXAMPLE, response: { status: 409 } }],
      handler: async (ctx, { params }) => runs.file(callerOf(ctx).orgId, params.id),
    }),

    defineOperation({
      id: 'listIntegrationRunRecords',
      method: 'GET',
      path: '/v1/integration-runs/{id}/records',
      tags,
      access: 'discovery',
      effect: 'read',
      agent: false,
      summary: 'The matched records of an ingest run',
      description:
        'One record per matched provider contact, in the order read: the person matched and the selected fields the person has. ' +
        'With has_more and next_cursor. Available once the run is completed (409 INTEGRATION_RUN_OUTPUT_UNAVAILABLE before, or for another kind). Free.',
      input: { params: RunParams, query: RecordListQuery },
      status: 200,
      responses: { 200: RunRecordListSchema },
      errors: ['INTEGRATION_RUN_NOT_FOUND', 'INTEGRATION_RUN_OUTPUT_UNAVAILABLE', 'INVALID_CURSOR'],
      examples: [
        {
          name: 'records',
          summary: 'Records of an ingest run',
          request: { ...RUN_EXAMPLE, query: { limit: 100 } },
          response: { status: 409 },
        },
      ],
      handler: async (ctx, { params, query }) => runs.records(callerOf(ctx).orgId, params.id, query),
    }),

    defineOperation({
      id: 'cancelIntegrationRun',
      method: 'POST',
      path: '/v1/integration-runs/{id}/cancel',
      tags,
      access: 'creator',
      effect: 'write',
      agent: false,
      summary: 'Cancel an integration run',
      description:
        'Only a `created` or `processing` run: nothing has been written to the provider or charged yet. A processing run stops before ' +
        'its next provider page and ends `cancelled`. Free.',
      input: { params: RunParams },
      status: 200,
      responses: { 200: RunSchema },
      errors: ['INTEGRATION_RUN_NOT_FOUND', 'INVALID_STATUS_TRANSITION'],
      examples: [{ name: 'cancel', summary: 'Cancel a queued run', request: RUN_EXAMPLE, response: { status: 200 } }],
      handler: async (ctx, { params }) => runs.cancel(callerOf(ctx).orgId, params.id),
    }),
  ];
}
