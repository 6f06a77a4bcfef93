import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { CommonErrors, DomainError } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { pageQuery, toPage, type CursorKey, type PageRequest } from '../../core/page.ts';
import { enqueueAttempt } from './events.ts';
import { orgSecretAad, secretHint, subscriptionSecretAad, type SecretBox } from './secret-box.ts';
import { newSigningSecret } from './signing.ts';
import { webhookStore, type AttemptRow, type DeliveryWithType, type SettingsRow, type SubscriptionRow } from './store.ts';
import type { EventType } from './types.ts';
import { checkTargetUrl, type TargetPolicy } from './url-policy.ts';

/** Newest-first keyset paging (core/page.ts): the rows of one page and the cursor of the next. */
async function paged<R extends { created_at: Date; id: string }>(
  scope: string,
  q: PageRequest,
  fetch: (after: CursorKey | null, limit: number) => Promise<R[]>,
) {
  const page = pageQuery(scope, q);
  const { items, next_cursor } = toPage(
    scope,
    await fetch(page.after, page.fetch),
    page.limit,
    (r) => ({ at: r.created_at, id: r.id }),
    (r) => r,
  );
  return { rows: items, next_cursor };
}

function settingsView(row: SettingsRow | undefined) {
  return {
    url: row?.url ?? null,
    status: !row?.url ? ('unset' as const) : row.disabled_at ? ('disabled' as const) : ('active' as const),
    disabled_reason: row?.url ? row.disabled_reason : null,
    secret_hint: row?.secret_hint ?? null,
    secret_created_at: row?.secret_created_at ?? null,
    updated_at: row?.updated_at ?? null,
  };
}

function subscriptionView(row: SubscriptionRow) {
  return {
    id: row.id,
    target_url: row.target_url,
    events: row.events,
    status: (row.deleted_at ? 'deleted' : row.status) as 'active' | 'disabled' | 'deleted',
    disabled_reason: row.disabled_reason,
    secret_hint: row.secret_hint,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function deliveryView(row: DeliveryWithType, attempts: AttemptRow[]) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    destination: row.destination as 'request' | 'organization' | 'subscription',
    subscription_id: row.subscription_id,
    target_url: row.target_url,
    status: row.status as 'pending' | 'succeeded' | 'failed',
    failure_reason: row.failure_reason,
    attempt_count: row.attempt_count,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    redelivery_of: row.redelivery_of,
    created_at: row.created_at,
    completed_at: row.completed_at,
    attempts: attempts
      .filter((a) => a.delivery_id === row.id)
      .map((a) => ({
        attempt: a.attempt,
        started_at: a.started_at,
        duration_ms: a.duration_ms,
        status_code: a.status_code,
        error: a.error,
        outcome: a.outcome,
      })),
  };
}

const subscriptionNotFound = (id: string) =>
  new DomainError('WEBHOOK_SUBSCRIPTION_NOT_FOUND', `Webhook subscription ${id} was not found.`, {
    nextStep: 'List subscriptions with GET /v1/webhook-subscriptions.',
  });
const deliveryNotFound = (id: string) =>
  new DomainError('WEBHOOK_DELIVERY_NOT_FOUND', `Webhook delivery ${id} was not found.`, {
    nextStep: "List an event's deliveries with GET /v1/events/{id}/deliveries.",
  });

/** Webhook configuration and the delivery log, for the organization's account holders. */
export function createWebhookService(deps: { db: Kysely<DB>; queue: JobQueue; clock: Clock; policy: () => TargetPolicy; box: SecretBox }) {
  const { db, queue, clock, box } = deps;

  async function withAttempts(orgId: string, rows: DeliveryWithType[]) {
    const attempts = await webhookStore.attempts(
      db,
      orgId,
      rows.map((r) => r.id),
    );
    return rows.map((r) => deliveryView(r, attempts));
  }

  return {
    getSettings: async (orgId: string) => settingsView(await webhookStore.settings(db, orgId)),

    /**
     * Sets the organization URL and always issues a new secret, returned once: one rule that is easy to
     * reason about (the secret in hand always matches the URL just set). Deliveries already scheduled
     * are signed with the new secret from then on.
     */
    async setUrl(orgId: string, url: string) {
      checkTargetUrl(url, deps.policy());
      const now = clock.now();
      const secret = newSigningSecret();
      const sealed = await box.seal(secret, orgSecretAad(orgId));
      await webhookStore.upsertSettings(db, {
        org_id: orgId,
        url,
        secret: sealed,
        secret_hint: secretHint(secret),
        secret_created_at: now,
        disabled_at: null,
        disabled_reason: null,
        updated_at: now,
      });
      return { ...settingsView(await webhookStore.settings(db, orgId)), secret };
    },

    /** Clears the URL but keeps the secret: one-off request URLs are still signed with it. */
    async clearUrl(orgId: string) {
      await webhookStore.clearUrl(db, orgId, clock.now());
      return settingsView(await webhookStore.settings(db, orgId));
    },

    async createSubscription(orgId: string, input: { target_url: string; events: EventType[] }) {
      checkTargetUrl(input.target_url, deps.policy());
      const now = clock.now();
      const id = newId('whs');
      const secret = newSigningSecret();
      const row: SubscriptionRow = {
        id,
        org_id: orgId,
        target_url: input.target_url,
        events: [...new Set(input.events)],
        secret: await box.seal(secret, subscriptionSecretAad(id)),
        secret_hint: secretHint(secret),
        status: 'active',
        disabled_reason: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await webhookStore.insertSubscription(db, row);
      return { ...subscriptionView(row), secret };
    },

    async listSubscriptions(orgId: string, q: PageRequest) {
      const { rows, next_cursor } = await paged('webhook-subscriptions', q, (after, limit) =>
        webhookStore.subscriptions(db, orgId, { after, limit }),
      );
      return { subscriptions: rows.map(subscriptionView), next_cursor };
    },

    async getSubscription(orgId: string, id: string) {
      const row = await webhookStore.subscription(db, orgId, id);
      if (!row) throw subscriptionNotFound(id);
      return subscriptionView(row);
    },

    async deleteSubscription(orgId: string, id: string) {
      const row = await webhookStore.subscription(db, orgId, id);
      if (!row) throw subscriptionNotFound(id);
      // Soft delete: the delivery log keeps pointing at it; pending deliveries end unsent.
      await webhookStore.setSubscriptionStatus(
        db,
        orgId,
        id,
        { status: row.status, disabled_reason: row.disabled_reason, deleted_at: clock.now() },
        clock.now(),
      );
      return subscriptionView((await webhookStore.subscription(db, orgId, id, true))!);
    },

    async subscriptionDeliveries(orgId: string, id: string, q: PageRequest) {
      if (!(await webhookStore.subscription(db, orgId, id, true))) throw subscriptionNotFound(id);
      // The scope names the subscription: a cursor of another list is refused (INVALID_CURSOR).
      const { rows, next_cursor } = await paged(`webhook-deliveries:subscription:${id}`, q, (after, limit) =>
        webhookStore.deliveries(db, orgId, { subscriptionId: id, after, limit }),
      );
      return { deliveries: await withAttempts(orgId, rows), next_cursor };
    },

    async getEvent(orgId: string, id: string) {
      const row = await webhookStore.event(db, orgId, id);
      if (!row) throw CommonErrors.notFound(`Event ${id}`);
      return JSON.parse(row.body) as Record<string, unknown>;
    },

    async eventDeliveries(orgId: string, id: string, q: PageRequest) {
      if (!(await webhookStore.event(db, orgId, id))) throw CommonErrors.notFound(`Event ${id}`);
      const { rows, next_cursor } = await paged(`webhook-deliveries:event:${id}`, q, (after, limit) =>
        webhookStore.deliveries(db, orgId, { eventId: id, after, limit }),
      );
      return { deliveries: await withAttempts(orgId, rows), next_cursor };
    },

    async getDelivery(orgId: string, id: string) {
      const row = await webhookStore.delivery(db, orgId, id);
      if (!row) throw deliveryNotFound(id);
      return (await withAttempts(orgId, [row]))[0]!;
    },

    /**
     * Sends the same event (same id and body, signed afresh) to the same endpoint again, as a new
     * delivery with its own 10 attempts. The original's record is left as it was.
     */
    async redeliver(orgId: string, id: string) {
      const original = await webhookStore.delivery(db, orgId, id);
      if (!original) throw deliveryNotFound(id);
      if (original.status === 'pending') {
        throw new DomainError(
          'DELIVERY_IN_PROGRESS',
          'This delivery is still being attempted; redeliver it once it has succeeded or failed.',
          { nextStep: 'Wait until the delivery succeeded or failed, then redeliver it.' },
        );
      }
      checkTargetUrl(original.target_url, deps.policy());
      if (original.subscription_id) {
        const sub = await webhookStore.subscription(db, orgId, original.subscription_id);
        if (!sub)
          throw new DomainError('SUBSCRIPTION_DELETED', 'The subscription of this delivery was deleted.', {
            nextStep: 'Create a new subscription.',
          });
        if (sub.status !== 'active')
          throw new DomainError('SUBSCRIPTION_DISABLED', 'The subscription is disabled (its endpoint answered 410 Gone).', {
            nextStep: 'Create a new subscription.',
          });
      }
      const now = clock.now();
      const newIdValue = newId('whd');
      await db.transaction().execute(async (trx) => {
        await webhookStore.insertDelivery(trx, {
          id: newIdValue,
          org_id: orgId,
          event_id: original.event_id,
          destination: original.destination,
          subscription_id: original.subscription_id,
          target_url: original.target_url,
          status: 'pending',
          failure_reason: null,
          last_status_code: null,
          last_error: null,
          next_attempt_at: now,
          redelivery_of: original.id,
          created_at: now,
          updated_at: now,
          completed_at: null,
        });
        await enqueueAttempt(queue, trx, { orgId, deliveryId: newIdValue, attempt: 1 });
      });
      return (await withAttempts(orgId, [(await webhookStore.delivery(db, orgId, newIdValue))!]))[0]!;
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
