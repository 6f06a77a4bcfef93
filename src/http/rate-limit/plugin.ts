import type { FastifyInstance } from 'fastify';
import type { Tier } from '../../config/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../core/errors.ts';
import type { RateLimiter } from './limiter.ts';
import { sha256Hex } from '../../lib/crypto.ts';

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
          if (!decision.allowed) throw rateLimited(limit, decision.retryAfterSeconds, tier);
        });
      });
    } catch (error) {
      return done(error as Error);
    }
    if (outcome instanceof Promise)
      outcome.then(
        () => done(),
        (error: Error) => done(error),
      );
    else done();
  });
}

function rateLimited(limit: number, retryAfterSeconds: number, tier: string): DomainError {
  return new DomainError('rate_limit_exceeded', `Too many requests: ${limit} requests per minute for tier ${tier}.`, {
    retryAfterSeconds,
    nextStep: `Wait ${retryAfterSeconds} seconds before retrying, or upgrade the plan for a higher limit.`,
  });
}

/** The key-for-bearer exchange route: unauthenticated, so limited per API key and per client address. */
export const EXCHANGE_ROUTE = '/v1/auth/token';

/**
 * Token exchange limits (issue: 919 exchanges/s were sustained): each attempt counts against its client
 * address and, when it names a key, against that key (by hash; the raw key is never stored). Both are
 * sliding windows shared across processes like the tier limit.
 */
export function registerExchangeRateLimit(
  app: FastifyInstance,
  deps: { limiter: RateLimiter; perKeyPerMinute: number; perAddressPerMinute: number },
): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url !== EXCHANGE_ROUTE || request.method !== 'POST') return;
    const byAddress = await deps.limiter.check(`exchange-address:${request.ip}`, deps.perAddressPerMinute);
    if (!byAddress.allowed) throw exchangeLimited(deps.perAddressPerMinute, byAddress.retryAfterSeconds, 'client address');
    const apiKey = (request.body as { api_key?: unknown } | undefined)?.api_key;
    if (typeof apiKey === 'string' && apiKey.length > 0) {
      const byKey = await deps.limiter.check(`exchange-key:${sha256Hex(apiKey).slice(0, 40)}`, deps.perKeyPerMinute);
      if (!byKey.allowed) throw exchangeLimited(deps.perKeyPerMinute, byKey.retryAfterSeconds, 'API key');
    }
    reply.header('x-ratelimit-limit', String(deps.perKeyPerMinute));
  });
}

function exchangeLimited(limit: number, retryAfterSeconds: number, per: string): DomainError {
  return new DomainError('rate_limit_exceeded', `Too many token exchanges: ${limit} per minute per ${per}.`, {
    retryAfterSeconds,
    nextStep: `Wait ${retryAfterSeconds} seconds. A bearer lasts an hour: exchange once and reuse it until shortly before it expires.`,
  });
}
