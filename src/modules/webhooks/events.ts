import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { orgSecretAad, secretHint, type SecretBox } from './secret-box.ts';
import { newSigningSecret } from './signing.ts';
import { webhookStore, type DeliveryRow } from './store.ts';
import {
  WEBHOOK_API_VERSION,
  type DeliveryDestination,
  type EventDataByType,
  type EventEnvelope,
  type EventSubject,
  type EventType,
} from './types.ts';
import { checkTargetUrl, type TargetPolicy } from './url-policy.ts';

/** One pg-boss job per delivery attempt; a retry is a new job with a start time (see dispatcher.ts). */
export const DELIVERY_JOB = 'webhook-delivery';

export interface DeliveryJobData {
  orgId: string;
  deliveryId: string;
  /** The attempt this job makes (1-based); a job whose attempt was already recorded does nothing. */
  attempt: number;
}

export interface EmitInput<T extends EventType> {
  orgId: string;
  type: T;
  subject: EventSubject;
  data: EventDataByType[T];
  /** The request's own `webhook_url`: replaces the organization URL for this event (spec 6). */
  webhookUrl?: string | null;
}

export interface EmittedEvent {
  eventId: string;
  deliveryIds: string[];
}

export async function enqueueAttempt(queue: JobQueue, trx: Kysely<DB>, data: DeliveryJobData, startAfter?: Date): Promise<void> {
  await queue.send(DELIVERY_JOB, data, startAfter ? { startAfter } : {}, trx);
}

/**
 * The API other modules call to publish an event. `emit(trx, ...)` writes the event (outbox), one
 * delivery row per destination and one job per delivery inside the caller's transaction: the event
 * exists if and only if the state change that caused it committed, and survives any restart after that.
 *
 * Requires the webhook queue to exist already (startJobs creates it in every role at start-up):
 * creating it inside an open embedded transaction would wait on that transaction.
 */
export function createEventService(deps: { db: Kysely<DB>; queue: JobQueue; clock: Clock; policy: () => TargetPolicy; box: SecretBox }) {
  const { db, queue, clock, box } = deps;

  async function emitIn<T extends EventType>(trx: Kysely<DB>, input: EmitInput<T>): Promise<EmittedEvent> {
    const now = clock.now();
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type: input.type,
      created_at: now.toISOString(),
      api_version: WEBHOOK_API_VERSION,
      org_id: input.orgId,
      subject: { kind: input.subject.kind, id: input.subject.id, name: input.subject.name ?? null },
      data: input.data as Record<string, unknown>,
      links: {},
    };
    await webhookStore.insertEvent(trx, {
      id: envelope.id,
      org_id: input.orgId,
      type: input.type,
      subject_kind: envelope.subject.kind,
      subject_id: envelope.subject.id,
      body: JSON.stringify(envelope),
      created_at: now,
    });

    // Destinations (spec 6 and ARCHITECTURE): the request URL replaces the organization URL;
    // subscriptions to this type always receive it as well.
    const targets: { destination: DeliveryDestination; url: string; subscriptionId: string | null }[] = [];
    if (input.webhookUrl) {
      // One-off URLs are signed with the organization secret: create one now if the org has none yet.
      if (!(await webhookStore.settings(trx, input.orgId))) {
        const secret = newSigningSecret();
        await webhookStore.ensureSettings(trx, {
          org_id: input.orgId,
          url: null,
          secret: await box.seal(secret, orgSecretAad(input.orgId), trx),
          secret_hint: secretHint(secret),
          secret_created_at: now,
          disabled_at: null,
          disabled_reason: null,
          updated_at: now,
        });
      }
      targets.push({ destination: 'request', url: input.webhookUrl, subscriptionId: null });
    } else {
      const settings = await webhookStore.settings(trx, input.orgId);
      if (settings?.url && !settings.disabled_at) targets.push({ destination: 'organization', url: settings.url, subscriptionId: null });
    }
    for (const sub of await webhookStore.activeSubscriptionsFor(trx, input.orgId, input.type)) {
      targets.push({ destination: 'subscription', url: sub.target_url, subscriptionId: sub.id });
    }

    const deliveryIds: string[] = [];
    for (const target of targets) {
      const row: Omit<DeliveryRow, 'attempt_count'> = {
        id: newId('whd'),
        org_id: input.orgId,
        event_id: envelope.id,
        destination: target.destination,
        subscription_id: target.subscriptionId,
        target_url: target.url,
        status: 'pending',
        failure_reason: null,
        last_status_code: null,
        last_error: null,
        next_attempt_at: now,
        redelivery_of: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      };
      let allowed = true;
      try {
        checkTargetUrl(target.url, deps.policy());
      } catch (error) {
        // Emitters validate webhook_url at request time (validateWebhookUrl); this guards the rest
        // without failing the caller's state change: the delivery is recorded as failed, visibly.
        allowed = false;
        Object.assign(row, {
          status: 'failed',
          failure_reason: 'target_not_allowed',
          last_error: (error as Error).message,
          next_attempt_at: null,
          completed_at: now,
        });
      }
      await webhookStore.insertDelivery(trx, row);
      if (allowed) await enqueueAttempt(queue, trx, { orgId: input.orgId, deliveryId: row.id, attempt: 1 });
      deliveryIds.push(row.id);
    }
    return { eventId: envelope.id, deliveryIds };
  }

  return {
    /** Emit inside the caller's transaction (the normal use). Given a non-transaction, opens one. */
    emit<T extends EventType>(trx: Kysely<DB>, input: EmitInput<T>): Promise<EmittedEvent> {
      return trx.isTransaction ? emitIn(trx, input) : db.transaction().execute((tx) => emitIn(tx, input));
    },
    /** For emitters' request validation: throws 400 INVALID_WEBHOOK_URL for a URL the policy refuses. */
    validateWebhookUrl(url: string): void {
      checkTargetUrl(url, deps.policy());
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
