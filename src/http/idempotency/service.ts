import type { Clock } from '../../lib/clock.ts';
import { HOUR } from '../../lib/clock.ts';
import { canonicalJson, sha256Hex } from '../../lib/crypto.ts';
import { CommonErrors, DomainError } from '../../core/errors.ts';
import type { IdempotencyRecord, IdempotencyStore } from './store.ts';

/** Replay window of spec section 8. */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR;

export interface IdempotentResult<T> {
  statusCode: number;
  body: T;
  replayed: boolean;
}

export interface IdempotentCall<T> {
  orgId: string;
  /** What the key is unique within: the operation and the caller (another caller's key is another key). */
  scope: string;
  key: string;
  body: unknown;
  execute: () => Promise<{ statusCode: number; body: T }>;
  /** Rebuilds the parts of a stored response that expire (e.g. re-signs URLs) on replay. */
  refresh?: (body: T) => Promise<T> | T;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The generic Idempotency-Key mechanism: the same key with an identical body within 24 hours replays
 * the original response; a different body is a 409; concurrent duplicates run once (the second waits
 * for the first and replays its result). A failed execution releases the key so it can be retried.
 */
export function createIdempotencyService(deps: { store: IdempotencyStore; clock: Clock; pollMs?: number; waitMs?: number }) {
  const { store, clock } = deps;
  const pollMs = deps.pollMs ?? 25;
  const waitMs = deps.waitMs ?? 60_000;

  async function replay<T>(record: IdempotencyRecord, call: IdempotentCall<T>): Promise<IdempotentResult<T>> {
    const stored = (typeof record.response === 'string' ? JSON.parse(record.response) : record.response) as T;
    const body = call.refresh ? await call.refresh(stored) : stored;
    return { statusCode: record.status_code ?? 200, body, replayed: true };
  }

  async function runClaimed<T>(record: IdempotencyRecord, call: IdempotentCall<T>): Promise<IdempotentResult<T>> {
    try {
      const result = await call.execute();
      await store.complete(record, result.statusCode, result.body);
      return { ...result, replayed: false };
    } catch (error) {
      await store.release(record);
      throw error;
    }
  }

  return {
    async run<T>(call: IdempotentCall<T>): Promise<IdempotentResult<T>> {
      if (!KEY_PATTERN.test(call.key)) {
        throw new DomainError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 printable ASCII characters without spaces.', {
          nextStep: 'Send a key such as a UUID.',
        });
      }
      const requestHash = sha256Hex(canonicalJson(call.body ?? null));
      const deadline = Date.now() + waitMs;
      for (;;) {
        const now = clock.now();
        const record: IdempotencyRecord = {
          org_id: call.orgId,
          endpoint: call.scope,
          key: call.key,
          request_hash: requestHash,
          state: 'running',
          status_code: null,
          response: null,
          created_at: now,
          expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        };
        if (await store.claim(record)) return runClaimed(record, call);
        const existing = await store.find(record);
        if (!existing) continue; // released between our claim and read: claim again
        if (existing.expires_at.getTime() <= now.getTime()) {
          if (await store.reclaimExpired(record, now)) return runClaimed(record, call);
          continue;
        }
        if (existing.request_hash !== requestHash) throw CommonErrors.idempotencyConflict();
        if (existing.state === 'completed') return replay(existing, call);
        if (Date.now() > deadline) {
          throw new DomainError('IDEMPOTENT_REQUEST_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed.', {
            nextStep: 'Retry in a few seconds to receive its result.',
          });
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
