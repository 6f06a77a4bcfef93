import { Type } from 'typebox';
import { DateTime, Nullable, PageQuery } from '../../core/schema.ts';
import { EVENT_TYPES } from './types.ts';

export const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'Event type' },
);

export const PutWebhookBody = Type.Object(
  { url: Nullable(Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL; null clears it' })) },
  { additionalProperties: false },
);

const settingsFields = {
  url: Nullable(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('unset')], {
    description: '`disabled` after the URL answered 410 Gone; set it again to re-enable',
  }),
  disabled_reason: Nullable(Type.String()),
  secret_hint: Nullable(Type.String({ description: 'Start and end of the signing secret, to recognise it; never the secret' })),
  secret_created_at: Nullable(DateTime()),
  updated_at: Nullable(DateTime()),
};
export const WebhookSettingsSchema = Type.Object(settingsFields);
export const WebhookSettingsWithSecretSchema = Type.Object({
  ...settingsFields,
  secret: Type.Optional(
    Type.String({ description: 'Signing secret. Returned once, whenever a URL is set (each PUT with a URL issues a new one).' }),
  ),
});

export const CreateSubscriptionBody = Type.Object(
  { target_url: Type.String({ minLength: 1, maxLength: 2048 }), events: Type.Array(EventTypeSchema, { minItems: 1, maxItems: 4 }) },
  { additionalProperties: false },
);

const subscriptionFields = {
  id: Type.String(),
  target_url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('deleted')], {
    description: '`disabled` after the endpoint answered 410 Gone',
  }),
  disabled_reason: Nullable(Type.String()),
  secret_hint: Type.String(),
  created_at: DateTime(),
  updated_at: DateTime(),
};
export const SubscriptionSchema = Type.Object(subscriptionFields);
export const CreatedSubscriptionSchema = Type.Object({
  ...subscriptionFields,
  secret: Type.String({ description: 'Signing secret, shown once' }),
});

export const DeliverySchema = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  destination: Type.Union([Type.Literal('request'), Type.Literal('organization'), Type.Literal('subscription')]),
  subscription_id: Nullable(Type.String()),
  target_url: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  failure_reason: Nullable(
    Type.String({
      description:
        'endpoint_gone (410), rejected (other 4xx or 3xx), attempts_exhausted, target_not_allowed, subscription_deleted, no_secret',
    }),
  ),
  attempt_count: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(DateTime()),
  redelivery_of: Nullable(Type.String()),
  created_at: DateTime(),
  completed_at: Nullable(DateTime()),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      started_at: DateTime(),
      duration_ms: Type.Integer(),
      status_code: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      outcome: Type.String({ description: 'succeeded, retry, or a failure reason' }),
    }),
  ),
});

export const WebhookPageQuery = Type.Object(PageQuery, { additionalProperties: false });
export const EventSchema = Type.Object({}, { additionalProperties: true, description: 'The event envelope as it was sent (spec 6)' });
const NextCursor = Nullable(Type.String({ description: 'Opaque; pass as cursor for the next (older) page. Null on the last page.' }));
export const DeliveryListSchema = Type.Object({ deliveries: Type.Array(DeliverySchema), next_cursor: NextCursor });
export const SubscriptionListSchema = Type.Object({ subscriptions: Type.Array(SubscriptionSchema), next_cursor: NextCursor });
