import type { Clock } from '../../lib/clock.ts';
import type { RateLimitStore } from './store.ts';

const WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

interface Lease {
  windowStart: number;
  granted: number;
  used: number;
  /** The shared counter reached the limit: refuse locally until the window ends, no more writes. */
  exhausted: boolean;
  pending: Promise<void> | null;
}

/**
 * A per-organization, per-minute request limit shared by every API process on one database.
 *
 * Each process leases a small batch of requests from a shared counter (one upsert per batch, not per
 * request) and spends it locally. The shared counter never grants more than the limit, so the
 * organization is never over-admitted; the tolerance is under-admission by at most
 * (batch - 1) per process, 2% of the limit when another process still holds unspent leases. Windows are fixed
 * minutes aligned to the clock.
 */
export function createRateLimiter(deps: { store: RateLimitStore; clock: Clock }) {
  const { store, clock } = deps;
  const leases = new Map<string, Lease>();
  let lastCleanup = 0;

  /** A lease is 2% of the limit (at least 1, at most 10,000): one shared write per 50th of the budget. */
  function batchFor(limit: number): number {
    return Math.max(1, Math.min(10_000, Math.floor(limit / 50)));
  }

  async function takeLease(orgId: string, lease: Lease, limit: number): Promise<void> {
    const batch = batchFor(limit);
    const total = await store.addToWindow(orgId, new Date(lease.windowStart), batch);
    const before = total - batch;
    const granted = Math.max(0, Math.min(batch, limit - before));
    lease.granted += granted;
    // A short grant means the shared counter reached the limit: no further lease can succeed.
    if (granted < batch) lease.exhausted = true;
    if (lease.windowStart > lastCleanup + 10 * WINDOW_MS) {
      lastCleanup = lease.windowStart;
      void store.deleteWindowsBefore(new Date(lease.windowStart - 10 * WINDOW_MS)).catch(() => {});
    }
  }

  function decide(lease: Lease, now: number, limit: number): RateDecision {
    if (lease.used < lease.granted) {
      lease.used += 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((lease.windowStart + WINDOW_MS - now) / 1000)), limit };
  }

  async function leaseThenDecide(orgId: string, lease: Lease, now: number, limit: number): Promise<RateDecision> {
    while (lease.used >= lease.granted && !lease.exhausted) {
      // One lease request at a time per organization; concurrent requests wait for it.
      lease.pending ??= takeLease(orgId, lease, limit).finally(() => {
        lease.pending = null;
      });
      await lease.pending;
    }
    return decide(lease, now, limit);
  }

  return {
    /** Synchronous while the process holds an unspent lease (the common case); a promise otherwise. */
    check(orgId: string, limit: number): RateDecision | Promise<RateDecision> {
      const now = clock.now().getTime();
      const windowStart = now - (now % WINDOW_MS);
      let lease = leases.get(orgId);
      if (!lease || lease.windowStart !== windowStart) {
        lease = { windowStart, granted: 0, used: 0, exhausted: false, pending: null };
        leases.set(orgId, lease);
      }
      if (lease.used < lease.granted || lease.exhausted) return decide(lease, now, limit);
      return leaseThenDecide(orgId, lease, now, limit);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
