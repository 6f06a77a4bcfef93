import type { Clock } from '../../lib/clock.ts';
import type { RateLimitStore } from './store.ts';

const WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

interface Lease {
  windowStart: number;
  /** The previous minute's shared total (fixed once that minute is over); null until read. */
  previous: number | null;
  /** The current minute's shared total as last seen by this process. */
  seen: number;
  granted: number;
  used: number;
  /** The shared estimate reached the limit: refuse locally until `retryAt`, no writes meanwhile. */
  retryAt: number | null;
  pending: Promise<void> | null;
}

/**
 * A per-key requests-per-minute limit over a sliding window, shared by every API process on one
 * database. Keys are organizations (the tier limit) or, for the key-for-bearer exchange, an API key's
 * hash and a client address.
 *
 * The window is the sliding-window counter: the requests of the current minute plus the previous
 * minute's total weighted by the part of it still inside the last 60 seconds. A burst at a minute
 * boundary therefore meets the previous minute's requests and cannot double the limit (a fixed window
 * let twice the limit through within seconds). Each process leases a small batch of requests from the
 * shared counter (one upsert per batch, not per request) and spends it locally; the shared counter
 * never grants more than the estimate allows, so a key is never over-admitted. The tolerance is
 * under-admission by the unspent leases of other processes (2% of the limit each).
 */
export function createRateLimiter(deps: { store: RateLimitStore; clock: Clock }) {
  const { store, clock } = deps;
  const leases = new Map<string, Lease>();
  let lastCleanup = 0;

  /** A lease is 2% of the limit (at least 1, at most 10,000): one shared write per 50th of the budget. */
  const batchFor = (limit: number) => Math.max(1, Math.min(10_000, Math.floor(limit / 50)));

  /** The previous minute's requests still inside the sliding window at `now`, rounded up. */
  const carried = (lease: Lease, now: number) => Math.ceil((lease.previous ?? 0) * (1 - (now - lease.windowStart) / WINDOW_MS));

  /** The first instant one more request fits, given the shared totals seen. */
  function nextAdmission(lease: Lease, limit: number): number {
    const room = limit - 1 - lease.seen;
    const previous = lease.previous ?? 0;
    if (room >= 0 && previous > 0) return lease.windowStart + Math.ceil(WINDOW_MS * (1 - room / previous));
    // Not within this minute: next minute, this minute's total becomes the weighted one.
    const next = lease.windowStart + WINDOW_MS;
    return lease.seen <= limit - 1 ? next : next + Math.ceil(WINDOW_MS * (1 - (limit - 1) / lease.seen));
  }

  async function takeLease(key: string, lease: Lease, limit: number): Promise<void> {
    lease.previous ??= await store.readWindow(key, new Date(lease.windowStart - WINDOW_MS));
    const batch = batchFor(limit);
    const total = await store.addToWindow(key, new Date(lease.windowStart), batch);
    const now = clock.now().getTime();
    const granted = Math.max(0, Math.min(batch, limit - carried(lease, now) - (total - batch)));
    // Give back what was not granted, so the shared total counts admitted requests only.
    lease.seen = granted < batch ? await store.addToWindow(key, new Date(lease.windowStart), granted - batch) : total;
    lease.granted += granted;
    lease.retryAt = granted < batch ? Math.max(now + 1, nextAdmission(lease, limit)) : null;
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
    const retryAt = lease.retryAt ?? nextAdmission(lease, limit);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((retryAt - now) / 1000)), limit };
  }

  /** Keys per client address can be many: forget leases of past minutes when the map grows large. */
  function prune(windowStart: number) {
    for (const [key, lease] of leases) if (lease.windowStart < windowStart && !lease.pending) leases.delete(key);
  }

  const blocked = (lease: Lease, now: number) => lease.retryAt !== null && now < lease.retryAt;

  async function leaseThenDecide(key: string, lease: Lease, now: number, limit: number): Promise<RateDecision> {
    while (lease.used >= lease.granted && !blocked(lease, clock.now().getTime())) {
      // One lease request at a time per key; concurrent requests wait for it.
      lease.pending ??= takeLease(key, lease, limit).finally(() => {
        lease.pending = null;
      });
      await lease.pending;
    }
    return decide(lease, now, limit);
  }

  return {
    /** Synchronous while the process holds an unspent lease (the common case); a promise otherwise. */
    check(key: string, limit: number): RateDecision | Promise<RateDecision> {
      const now = clock.now().getTime();
      const windowStart = now - (now % WINDOW_MS);
      let lease = leases.get(key);
      if (!lease || lease.windowStart !== windowStart) {
        if (!lease && leases.size >= 50_000) prune(windowStart);
        lease = { windowStart, previous: null, seen: 0, granted: 0, used: 0, retryAt: null, pending: null };
        leases.set(key, lease);
      }
      if (lease.used < lease.granted || blocked(lease, now)) return decide(lease, now, limit);
      return leaseThenDecide(key, lease, now, limit);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
