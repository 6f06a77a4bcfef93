/**
 * Operations of the webhooks area (spec 4.9, 6): the organization URL, durable subscriptions, events
 * and their delivery log. Configuration needs `account`; reading it needs `account-read` (which
 * `account` implies).
 */
import { callerOf, defineOperation, reply, type Operation, type OperationContext } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams } from '../../core/schema.ts';
import {
  CreateSubscriptionBody, CreatedSubscriptionSchema, DeliveryListSchema, DeliverySchema, EventSchema, PutWebhookBody, SubscriptionListSchema,
  SubscriptionSchema, WebhookPageQuery, WebhookSettingsSchema, WebhookSettingsWithSecretSchema,
} from './schemas.ts';
import type { WebhookService } from './service.ts';

const tags = ['Webhooks'];
const PAGING = '`limit` (default 25, max 100); follow `next_cursor` (null on the last page) as `cursor`. A cursor is valid only for the list that issued it: 400 INVALID_CURSOR otherwise.';
const orgOf = (ctx: OperationContext) => callerOf(ctx).orgId;

export function webhookOperations(deps: { webhooks: WebhookService }): Operation[] {
  const { webhooks } = deps;
  return [
    defineOperation({
      id: 'getWebhookSettings', method: 'GET', path: '/v1/settings/webhook', tags, access: 'account-read', effect: 'read', agent: false,
      summary: 'Read the organization webhook URL (never its secret)',
      description: 'The URL, whether it is active or was disabled by a 410 Gone answer, and a hint of the signing secret.',
      input: {}, status: 200, responses: { 200: WebhookSettingsSchema }, errors: [],
      examples: [{ name: 'read', summary: 'Current settings', request: {}, response: { status: 200 } }],
      handler: async (ctx) => webhooks.getSettings(orgOf(ctx)),
    }),
    defineOperation({
      id: 'putWebhookSettings', method: 'PUT', path: '/v1/settings/webhook', tags, access: 'account', effect: 'write', agent: false,
      summary: 'Set or clear the organization webhook URL',
      description: 'Setting a URL issues a new signing secret, returned once in `secret`; it also signs one-off request `webhook_url`s. `url: null` clears the URL and keeps the secret. '
        + 'The URL must pass the outbound-target policy (HTTPS to a public host).',
      input: { body: PutWebhookBody }, status: 200, responses: { 200: WebhookSettingsWithSecretSchema }, errors: ['INVALID_WEBHOOK_URL'],
      examples: [{
        name: 'set', summary: 'Set the URL (the secret is in this answer only)',
        request: { body: { url: 'https://hooks.example.com/audience-events' } },
        response: { status: 200, body: { url: 'https://hooks.example.com/audience-events', status: 'active', disabled_reason: null, secret_hint: 'whsec_Ab…9z', secret: 'whsec_...', secret_created_at: '2026-11-23T12:00:00.000Z', updated_at: '2026-11-23T12:00:00.000Z' } },
      }],
      handler: async (ctx, { body }) => (body.url === null ? webhooks.clearUrl(orgOf(ctx)) : webhooks.setUrl(orgOf(ctx), body.url)),
    }),
    defineOperation({
      id: 'deleteWebhookSettings', method: 'DELETE', path: '/v1/settings/webhook', tags, access: 'account', effect: 'write', agent: false,
      summary: 'Clear the organization webhook URL (the secret is kept)',
      description: 'Events then go only to request `webhook_url`s and subscriptions.',
      input: {}, status: 200, responses: { 200: WebhookSettingsSchema }, errors: [],
      examples: [{ name: 'clear', summary: 'Clear the URL', request: {}, response: { status: 200 } }],
      handler: async (ctx) => webhooks.clearUrl(orgOf(ctx)),
    }),
    defineOperation({
      id: 'createWebhookSubscription', method: 'POST', path: '/v1/webhook-subscriptions', tags, access: 'account', effect: 'write', agent: false,
      summary: 'Subscribe an endpoint to event types',
      description: 'Subscriptions receive their types for every event of the organization, in addition to the organization or request URL. The secret is shown once.',
      input: { body: CreateSubscriptionBody }, status: 201, responses: { 201: CreatedSubscriptionSchema }, errors: ['INVALID_WEBHOOK_URL'],
      examples: [{
        name: 'subscribe', summary: 'Delivery events to a data-team endpoint',
        request: { body: { target_url: 'https://hooks.example.com/deliveries', events: ['delivery.completed', 'delivery.failed'] } },
        response: { status: 201 },
      }],
      handler: async (ctx, { body }) => webhooks.createSubscription(orgOf(ctx), body),
    }),
    defineOperation({
      id: 'listWebhookSubscriptions', method: 'GET', path: '/v1/webhook-subscriptions', tags, access: 'account-read', effect: 'read', agent: false,
      summary: 'List subscriptions, newest first', description: PAGING,
      input: { query: WebhookPageQuery }, status: 200, responses: { 200: SubscriptionListSchema }, errors: ['INVALID_CURSOR'],
      examples: [{ name: 'list', summary: 'First page', request: { query: { limit: 10 } }, response: { status: 200 } }],
      handler: async (ctx, { query }) => webhooks.listSubscriptions(orgOf(ctx), query),
    }),
    defineOperation({
      id: 'getWebhookSubscription', method: 'GET', path: '/v1/webhook-subscriptions/{id}', tags, access: 'account-read', effect: 'read', agent: false,
      summary: 'Get a subscription', description: 'Its target, event types, status and secret hint.',
      input: { params: IdParams }, status: 200, responses: { 200: SubscriptionSchema }, errors: ['WEBHOOK_SUBSCRIPTION_NOT_FOUND'],
      examples: [{ name: 'get', summary: 'One subscription', request: { params: { id: EXAMPLE.subscriptionId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => webhooks.getSubscription(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'deleteWebhookSubscription', method: 'DELETE', path: '/v1/webhook-subscriptions/{id}', tags, access: 'account', effect: 'write', agent: false,
      summary: 'Delete a subscription', description: 'Pending deliveries to it end unsent; its delivery log stays readable.',
      input: { params: IdParams }, status: 200, responses: { 200: SubscriptionSchema }, errors: ['WEBHOOK_SUBSCRIPTION_NOT_FOUND'],
      examples: [{ name: 'delete', summary: 'Delete it', request: { params: { id: EXAMPLE.subscriptionId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => webhooks.deleteSubscription(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'listWebhookSubscriptionDeliveries', method: 'GET', path: '/v1/webhook-subscriptions/{id}/deliveries', tags, access: 'account-read', effect: 'read', agent: false,
      summary: "A subscription's deliveries, newest first, with their attempts", description: PAGING,
      input: { params: IdParams, query: WebhookPageQuery }, status: 200, responses: { 200: DeliveryListSchema }, errors: ['WEBHOOK_SUBSCRIPTION_NOT_FOUND', 'INVALID_CURSOR'],
      examples: [{ name: 'deliveries', summary: 'Its log', request: { params: { id: EXAMPLE.subscriptionId } }, response: { status: 200 } }],
      handler: async (ctx, { params, query }) => webhooks.subscriptionDeliveries(orgOf(ctx), params.id, query),
    }),
    defineOperation({
      id: 'getEvent', method: 'GET', path: '/v1/events/{id}', tags, access: 'account-read', effect: 'read', agent: false,
      summary: 'An event as it was sent', description: 'The envelope of spec 6, byte for byte the body that was signed.',
      input: { params: IdParams }, status: 200, responses: { 200: EventSchema }, errors: ['NOT_FOUND'],
      examples: [{ name: 'event', summary: 'One event', request: { params: { id: EXAMPLE.eventId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => webhooks.getEvent(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'listEventDeliveries', method: 'GET', path: '/v1/events/{id}/deliveries', tags, access: 'account-read', effect: 'read', agent: false,
      summary: "An event's deliveries (one per destination, plus redeliveries), newest first, with their attempts", description: PAGING,
      input: { params: IdParams, query: WebhookPageQuery }, status: 200, responses: { 200: DeliveryListSchema }, errors: ['NOT_FOUND', 'INVALID_CURSOR'],
      examples: [{ name: 'deliveries', summary: 'Where the event went', request: { params: { id: EXAMPLE.eventId } }, response: { status: 200 } }],
      handler: async (ctx, { params, query }) => webhooks.eventDeliveries(orgOf(ctx), params.id, query),
    }),
    defineOperation({
      id: 'getWebhookDelivery', method: 'GET', path: '/v1/webhook-deliveries/{id}', tags, access: 'account-read', effect: 'read', agent: false,
      summary: 'A delivery with its attempts', description: 'Status, failure reason, every attempt with its status code and duration.',
      input: { params: IdParams }, status: 200, responses: { 200: DeliverySchema }, errors: ['WEBHOOK_DELIVERY_NOT_FOUND'],
      examples: [{ name: 'delivery', summary: 'One delivery', request: { params: { id: EXAMPLE.webhookDeliveryId } }, response: { status: 200 } }],
      handler: async (ctx, { params }) => webhooks.getDelivery(orgOf(ctx), params.id),
    }),
    defineOperation({
      id: 'redeliverWebhook', method: 'POST', path: '/v1/webhook-deliveries/{id}/redeliver', tags, access: 'account', effect: 'write', agent: false,
      summary: 'Send a finished delivery again',
      description: 'Creates a new delivery of the same event (same id and body, signed afresh) to the same endpoint, with its own attempts.',
      input: { params: IdParams }, status: 202, responses: { 202: DeliverySchema },
      errors: ['WEBHOOK_DELIVERY_NOT_FOUND', 'DELIVERY_IN_PROGRESS', 'SUBSCRIPTION_DELETED', 'SUBSCRIPTION_DISABLED', 'INVALID_WEBHOOK_URL'],
      examples: [{ name: 'redeliver', summary: 'Send it again', request: { params: { id: EXAMPLE.webhookDeliveryId } }, response: { status: 202 } }],
      handler: async (ctx, { params }) => reply(202, await webhooks.redeliver(orgOf(ctx), params.id)),
    }),
  ];
}
