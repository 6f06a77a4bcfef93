import type { Kysely } from 'kysely';
import type { WebhookSettings } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { DELIVERY_JOB, enqueueAttempt, type DeliveryJobData } from './events.ts';
import { orgSecretAad, subscriptionSecretAad, type SecretBox } from './secret-box.ts';
import { postWebhook, type AttemptResult } from './sender.ts';
import { signedHeaders } from './signing.ts';
import { webhookStore } from './store.ts';
import { MAX_ATTEMPTS, type FailureReason } from './types.ts';
import type { TargetPolicy } from './url-policy.ts';

export interface DispatcherDeps {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  settings: WebhookSettings;
  policy: () => TargetPolicy;
  box: SecretBox;
  userAgent: string;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

type Verdict = { outcome: 'succeeded' } | { outcome: 'retry' } | { outcome: 'failed'; reason: FailureReason };

/** Spec 6: retry timeouts, 408, 429 and 5xx; 410 ends the endpoint; any other status is final. */
export function classify(result: AttemptResult, attempt: number): Verdict {
  const retry: Verdict = attempt >= MAX_ATTEMPTS ? { outcome: 'failed', reason: 'attempts_exhausted' } : { outcome: 'retry' };
  if (result.kind === 'blocked') return { outcome: 'failed', reason: 'target_not_allowed' };
  if (result.kind !== 'response') return retry; // timeouts and connection errors are transient
  const s = result.statusCode;
  if (s >= 200 && s < 300) return { outcome: 'succeeded' };
  if (s === 410) return { outcome: 'failed', reason: 'endpoint_gone' };
  if (s === 408 || s === 429 || s >= 500) return retry;
  return { outcome: 'failed', reason: 'rejected' };
}

/** Delay before attempt `next` (2..10): the configured schedule with +-25% jitter, so receivers recovering from an outage are not hit by every retry at once. */
export function retryDelayMs(schedule: number[], next: number, random = Math.random): number {
  const base = schedule[Math.min(next - 2, schedule.length - 1)] ?? 60;
  return Math.round(base * 1000 * (0.75 + random() * 0.5));
}

export function createDispatcher(deps: DispatcherDeps) {
  const { db, queue, clock, settings, box } = deps;

  /** Ends a delivery without sending (deleted subscription, disabled endpoint, no secret). */
  async function endUnsent(orgId: string, deliveryId: string, attempt: number, reason: FailureReason, message: string): Promise<void> {
    const now = clock.now();
    await webhookStore.advance(db, orgId, deliveryId, attempt - 1, {
      attempt_count: attempt - 1,
      status: 'failed',
      failure_reason: reason,
      last_error: message,
      next_attempt_at: null,
      completed_at: now,
      updated_at: now,
    });
  }

  /** Makes one attempt of one delivery and records it; schedules the next attempt when it should retry. */
  async function deliver(data: DeliveryJobData): Promise<void> {
    const { orgId, deliveryId, attempt } = data;
    const row = await webhookStore.forSend(db, orgId, deliveryId);
    // A job for an attempt already recorded (a duplicate or a late retry of the job itself) does nothing.
    if (!row || row.status !== 'pending' || row.attempt_count !== attempt - 1) return;

    // Sealed at rest (ADR 006); opened here, just before signing, and nowhere else.
    let sealed: string | null;
    let aad: string;
    if (row.destination === 'subscription') {
      if (row.subscription_deleted_at)
        return endUnsent(orgId, deliveryId, attempt, 'subscription_deleted', 'The subscription was deleted.');
      if (row.subscription_status !== 'active')
        return endUnsent(orgId, deliveryId, attempt, 'endpoint_gone', 'The subscription is disabled.');
      sealed = row.subscription_secret;
      aad = subscriptionSecretAad(row.subscription_id!);
    } else {
      if (row.destination === 'organization' && row.org_disabled_at && row.org_url === row.target_url) {
        return endUnsent(orgId, deliveryId, attempt, 'endpoint_gone', 'The organization webhook URL answered 410 Gone earlier.');
      }
      sealed = row.org_secret;
      aad = orgSecretAad(orgId);
    }
    if (!sealed) return endUnsent(orgId, deliveryId, attempt, 'no_secret', 'No signing secret is configured.');
    const secret = await box.open(sealed, aad);
    // Never send unsigned: a secret that does not decrypt (server key changed, row tampered with) ends the delivery.
    if (!secret) return endUnsent(orgId, deliveryId, attempt, 'no_secret', 'The signing secret could not be decrypted.');

    const startedAt = clock.now();
    const headers = signedHeaders({
      secret,
      body: row.body,
      nowMs: startedAt.getTime(),
      eventId: row.event_id,
      eventType: row.event_type,
      deliveryId,
      attempt,
      userAgent: deps.userAgent,
    });
    const result = await postWebhook({
      url: row.target_url,
      headers,
      body: row.body,
      timeoutMs: settings.attemptTimeoutMs,
      policy: deps.policy(),
    });
    const verdict = classify(result, attempt);
    const statusCode = result.kind === 'response' ? result.statusCode : null;
    const error = result.kind === 'response' ? (verdict.outcome === 'succeeded' ? null : `HTTP ${result.statusCode}`) : result.error;

    await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const nextAt = verdict.outcome === 'retry' ? new Date(Date.now() + retryDelayMs(settings.retryScheduleSeconds, attempt + 1)) : null;
      const advanced = await webhookStore.advance(trx, orgId, deliveryId, attempt - 1, {
        attempt_count: attempt,
        status: verdict.outcome === 'retry' ? 'pending' : verdict.outcome,
        failure_reason: verdict.outcome === 'failed' ? verdict.reason : null,
        last_status_code: statusCode,
        last_error: error,
        next_attempt_at: nextAt,
        completed_at: verdict.outcome === 'retry' ? null : now,
        updated_at: now,
      });
      if (!advanced) return; // another run recorded this attempt first
      await webhookStore.insertAttempt(trx, {
        delivery_id: deliveryId,
        attempt,
        org_id: orgId,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: statusCode,
        error,
        outcome: verdict.outcome === 'failed' ? verdict.reason : verdict.outcome,
      });
      if (verdict.outcome === 'retry') await enqueueAttempt(queue, trx, { orgId, deliveryId, attempt: attempt + 1 }, nextAt!);
      if (verdict.outcome === 'failed' && verdict.reason === 'endpoint_gone') {
        // 410 Gone ends delivery to that endpoint: the subscription, or the organization URL, is disabled.
        if (row.destination === 'subscription') {
          await webhookStore.setSubscriptionStatus(
            trx,
            orgId,
            row.subscription_id!,
            { status: 'disabled', disabled_reason: 'endpoint_gone' },
            now,
          );
        } else if (row.destination === 'organization') {
          await webhookStore.disableOrgUrl(trx, orgId, row.target_url, 'endpoint_gone', now);
        }
      }
    });
    const fields = {
      org_id: orgId,
      delivery_id: deliveryId,
      event_id: row.event_id,
      event_type: row.event_type,
      attempt,
      status_code: statusCode,
      ms: result.durationMs,
    };
    if (verdict.outcome === 'succeeded') deps.log?.info(fields, 'webhook delivered');
    else
      deps.log?.warn(
        { ...fields, outcome: verdict.outcome === 'failed' ? verdict.reason : 'retry', error },
        verdict.outcome === 'retry' ? 'webhook attempt failed; will retry' : 'webhook delivery failed',
      );
  }

  const BATCH = 8;
  const definition: JobDefinition<DeliveryJobData> = {
    name: DELIVERY_JOB,
    // pg-boss retries only cover a crash of the handler itself (e.g. the database was unreachable);
    // HTTP outcomes are retried by deliver() on the configured schedule.
    queue: {
      retryLimit: 5,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: Math.max(60, Math.ceil((settings.attemptTimeoutMs * 3) / 1000)),
    },
    // `concurrency` attempts at once per process, as independent fetch loops of small batches: a slow or
    // hanging receiver holds back at most the few attempts of its own batch, for at most the attempt
    // timeout. Attempts of a batch are sent concurrently (an attempt already recorded is skipped, so a
    // retried batch re-sends nothing); a full batch is followed by an immediate fetch.
    work: {
      batchSize: BATCH,
      localConcurrency: Math.max(1, Math.ceil(settings.concurrency / BATCH)),
      pollingIntervalSeconds: 0.5,
      // Retries are delayed jobs, which NOTIFY never announces: poll for them even when LISTEN is on.
      notifyPollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
    },
    handle: (data) => deliver(data),
  };

  return { deliver, definition };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
