import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import {
  CreateSubscriptionBody, CreatedSubscriptionSchema, DeliveryListSchema, DeliverySchema, IdParams, PageQuery, PutWebhookBody,
  SubscriptionListSchema, SubscriptionSchema, WebhookSettingsSchema, WebhookSettingsWithSecretSchema,
} from './schemas.ts';
import type { WebhookService } from './service.ts';

const tags = ['Webhooks'];
const PAGING = '`limit` (default 25, max 100); follow `next_cursor` (null on the last page) as `cursor`. A cursor is valid only for the list that issued it: 400 INVALID_CURSOR otherwise.';
const orgOf = (request: { principal: Parameters<typeof principalOf>[0]['principal'] }) => principalOf(request).orgId;

/** Configuration needs `account`; reading the configuration and the delivery log needs `account-read` (which `account` implies). */
export function webhookRoutes(deps: { webhooks: WebhookService }): FastifyPluginAsyncTypebox {
  const { webhooks } = deps;
  return async (app) => {
    app.get('/v1/settings/webhook', {
      config: { scope: 'account-read' },
      schema: { tags, summary: 'Read the organization webhook URL (never its secret)', response: { 200: WebhookSettingsSchema, ...errorResponses([]) } },
    }, async (request) => webhooks.getSettings(orgOf(request)));

    app.put('/v1/settings/webhook', {
      config: { scope: 'account' },
      schema: {
        tags, summary: 'Set or clear the organization webhook URL',
        description: 'Setting a URL issues a new signing secret, returned once in `secret`; it also signs one-off request `webhook_url`s. `url: null` clears the URL and keeps the secret.',
        body: PutWebhookBody, response: { 200: WebhookSettingsWithSecretSchema, ...errorResponses([400]) },
      },
    }, async (request) => (request.body.url === null ? webhooks.clearUrl(orgOf(request)) : webhooks.setUrl(orgOf(request), request.body.url)));

    app.delete('/v1/settings/webhook', {
      config: { scope: 'account' },
      schema: { tags, summary: 'Clear the organization webhook URL (the secret is kept)', response: { 200: WebhookSettingsSchema, ...errorResponses([]) } },
    }, async (request) => webhooks.clearUrl(orgOf(request)));

    app.post('/v1/webhook-subscriptions', {
      config: { scope: 'account' },
      schema: {
        tags, summary: 'Subscribe an endpoint to event types', description: 'Subscriptions receive their types for every event of the organization, in addition to the organization or request URL. The secret is shown once.',
        body: CreateSubscriptionBody, response: { 201: CreatedSubscriptionSchema, ...errorResponses([400]) },
      },
    }, async (request, reply) => {
      reply.status(201);
      return webhooks.createSubscription(orgOf(request), request.body);
    });

    app.get('/v1/webhook-subscriptions', {
      config: { scope: 'account-read' },
      schema: {
        tags, summary: 'List subscriptions, newest first', description: PAGING, querystring: PageQuery,
        response: { 200: SubscriptionListSchema, ...errorResponses([400]) },
      },
    }, async (request) => webhooks.listSubscriptions(orgOf(request), request.query));

    app.get('/v1/webhook-subscriptions/:id', {
      config: { scope: 'account-read' },
      schema: { tags, summary: 'Get a subscription', params: IdParams, response: { 200: SubscriptionSchema, ...errorResponses([404]) } },
    }, async (request) => webhooks.getSubscription(orgOf(request), request.params.id));

    app.delete('/v1/webhook-subscriptions/:id', {
      config: { scope: 'account' },
      schema: { tags, summary: 'Delete a subscription (pending deliveries to it end unsent)', params: IdParams, response: { 200: SubscriptionSchema, ...errorResponses([404]) } },
    }, async (request) => webhooks.deleteSubscription(orgOf(request), request.params.id));

    app.get('/v1/webhook-subscriptions/:id/deliveries', {
      config: { scope: 'account-read' },
      schema: {
        tags, summary: "A subscription's deliveries, newest first, with their attempts", description: PAGING, params: IdParams, querystring: PageQuery,
        response: { 200: DeliveryListSchema, ...errorResponses([400, 404]) },
      },
    }, async (request) => webhooks.subscriptionDeliveries(orgOf(request), request.params.id, request.query));

    app.get('/v1/events/:id', {
      config: { scope: 'account-read' },
      schema: { tags, summary: 'An event as it was sent', params: IdParams, response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses([404]) } },
    }, async (request) => webhooks.getEvent(orgOf(request), request.params.id));

    app.get('/v1/events/:id/deliveries', {
      config: { scope: 'account-read' },
      schema: {
        tags, summary: "An event's deliveries (one per destination, plus redeliveries), newest first, with their attempts", description: PAGING, params: IdParams,
        querystring: PageQuery, response: { 200: DeliveryListSchema, ...errorResponses([400, 404]) },
      },
    }, async (request) => webhooks.eventDeliveries(orgOf(request), request.params.id, request.query));

    app.get('/v1/webhook-deliveries/:id', {
      config: { scope: 'account-read' },
      schema: { tags, summary: 'A delivery with its attempts', params: IdParams, response: { 200: DeliverySchema, ...errorResponses([404]) } },
    }, async (request) => webhooks.getDelivery(orgOf(request), request.params.id));

    app.post('/v1/webhook-deliveries/:id/redeliver', {
      config: { scope: 'account' },
      schema: {
        tags, summary: 'Send a finished delivery again', description: 'Creates a new delivery of the same event (same id and body, signed afresh) to the same endpoint, with its own attempts.',
        params: IdParams, response: { 202: DeliverySchema, ...errorResponses([404, 409]) },
      },
    }, async (request, reply) => {
      reply.status(202);
      return webhooks.redeliver(orgOf(request), request.params.id);
    });
  };
}
