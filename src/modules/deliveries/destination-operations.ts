/**
 * Delivery destinations of the organization (spec 4 scope note: `account` manages delivery destinations;
 * reading them needs `account-read`). Credentials go in once and never come back.
 */
import { callerOf, defineOperation, reply, type Operation, type OperationContext } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams } from '../../core/schema.ts';
import type { DestinationService } from './destinations.ts';
import { CreateDestinationBody, DestinationListSchema, DestinationSchema, DestinationTestSchema } from './schemas.ts';

const tags = ['Delivery destinations'];
const orgOf = (ctx: OperationContext) => callerOf(ctx).orgId;

export function destinationOperations(deps: { destinations: DestinationService }): Operation[] {
  const { destinations } = deps;
  return [
    defineOperation({
      id: 'createDeliveryDestination',
      method: 'POST',
      path: '/v1/delivery-destinations',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Configure an SFTP or S3 destination',
      description:
        'The configuration is checked (every problem listed in 400 INVALID_DESTINATION_CONFIG); credentials are encrypted at rest and never returned. ' +
        'Nothing is dialled: test it with POST /v1/delivery-destinations/{id}/test.',
      input: { body: CreateDestinationBody },
      status: 201,
      responses: { 201: DestinationSchema },
      errors: ['INVALID_DESTINATION_CONFIG'],
      examples: [
        {
          name: 'sftp',
          summary: 'An SFTP folder with password authentication',
          request: {
            body: {
              kind: 'sftp',
              name: 'Partner drop',
              config: { host: 'sftp.example.com', port: 22, username: 'ads', remote_dir: '/incoming' },
              secrets: { password: 'example-password' },
            },
          },
          response: { status: 201 },
        },
      ],
      handler: async (ctx, { body }) => reply(201, await destinations.create(orgOf(ctx), body)),
    }),
    defineOperation({
      id: 'listDeliveryDestinations',
      method: 'GET',
      path: '/v1/delivery-destinations',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: false,
      summary: 'List destinations, newest first',
      description: 'Configurations only; credentials are never returned.',
      input: {},
      status: 200,
      responses: { 200: DestinationListSchema },
      errors: [],
      examples: [{ name: 'list', summary: 'All destinations', request: {}, response: { status: 200 } }],
      handler: async (ctx) => destinations.list(orgOf(ctx)),
    }),
    defineOperation({
      id: 'getDeliveryDestination',
      method: 'GET',
      path: '/v1/delivery-destinations/{id}',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: false,
      summary: 'Get a destination',
      description: 'Its kind, name and configuration (no credentials).',
      input: { params: IdParams },
      status: 200,
      responses: { 200: DestinationSchema },
      errors: ['DESTINATION_NOT_FOUND'],
      examples: [
        {
          name: 'missing',
          summary: 'An unknown destination',
          request: { params: { id: EXAMPLE.destinationId } },
          response: { status: 404 },
        },
      ],
      handler: async (ctx, { params }) => destinations.get(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'testDeliveryDestination',
      method: 'POST',
      path: '/v1/delivery-destinations/{id}/test',
      tags,
      access: 'account',
      effect: 'read',
      agent: false,
      summary: 'Test the connection',
      description:
        'Connects and authenticates as a delivery would and checks the folder or bucket, through the outbound-target policy. ' +
        '400 DESTINATION_BLOCKED, 502 DESTINATION_UNREACHABLE, DESTINATION_AUTH_FAILED or DESTINATION_WRITE_FAILED.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: DestinationTestSchema },
      errors: [
        'DESTINATION_NOT_FOUND',
        'DESTINATION_BLOCKED',
        'DESTINATION_UNREACHABLE',
        'DESTINATION_AUTH_FAILED',
        'DESTINATION_WRITE_FAILED',
        'INVALID_DESTINATION_CONFIG',
      ],
      examples: [
        {
          name: 'missing',
          summary: 'An unknown destination',
          request: { params: { id: EXAMPLE.destinationId } },
          response: { status: 404 },
        },
      ],
      handler: async (ctx, { params }) => destinations.test(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'deleteDeliveryDestination',
      method: 'DELETE',
      path: '/v1/delivery-destinations/{id}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Delete a destination',
      description: 'Its credentials are no longer used; a delivery still processing to it fails.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: DestinationSchema },
      errors: ['DESTINATION_NOT_FOUND'],
      examples: [
        {
          name: 'missing',
          summary: 'An unknown destination',
          request: { params: { id: EXAMPLE.destinationId } },
          response: { status: 404 },
        },
      ],
      handler: async (ctx, { params }) => destinations.remove(orgOf(ctx), params.id),
    }),
  ];
}
