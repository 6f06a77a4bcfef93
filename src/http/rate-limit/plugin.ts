import type { FastifyInstance } from 'fastify';
import type { Tier } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { Errors } from '../errors.ts';
import type { RateLimiter } from './limiter.ts';

/** Reads an organization's tier; cached briefly because it changes only with a contract change. */
export type TierLookup = (orgId: string) => Promise<Tier | null>;
/** The cached form answers synchronously on a hit. */
export type CachedTierLookup = (orgId: string) => Tier | null | Promise<Tier | null>;

export function cachedTierLookup(lookup: TierLookup, clock: Clock, ttlMs = 60_000): CachedTierLookup {
  const cache = new Map<string, { tier: Tier | null; at: number }>();
  return (orgId) => {
    const now = clock.now().getTime();
    const hit = cache.get(orgId);
    if (hit && now - hit.at < ttlMs) return hit.tier;
    return lookup(orgId).then((tier) => {
      cache.set(orgId, { tier, at: now });
      return tier;
    });
  };
}

/** Runs `next` on a value or on a promise of it, staying synchronous for plain values. */
function then<T, R>(value: T | Promise<T>, next: (v: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Per-organization requests per minute, by tier (spec section 8), on every authenticated route. */
export function registerRateLimit(
  app: FastifyInstance,
  deps: { limiter: RateLimiter; tierOf: CachedTierLookup; limits: Record<Tier, number> },
): void {
  app.addHook('onRequest', (request, reply, done) => {
    const principal = request.principal;
    if (!principal) return done();
    let outcome: void | Promise<void>;
    try {
      outcome = then(deps.tierOf(principal.orgId), (found) => {
        const tier = found ?? 'paygo';
        const limit = deps.limits[tier];
        return then(deps.limiter.check(principal.orgId, limit), (decision) => {
          reply.header('x-ratelimit-limit', String(limit));
          if (!decision.allowed) throw Errors.rateLimited(limit, decision.retryAfterSeconds, tier);
        });
      });
    } catch (error) {
      return done(error as Error);
    }
    if (outcome instanceof Promise) outcome.then(() => done(), (error: Error) => done(error));
    else done();
  });
}
