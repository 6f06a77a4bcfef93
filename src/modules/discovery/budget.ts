/**
 * Compute budget: every count and lookup is charged an estimate of the bytes it scans, against an
 * hourly per-organization budget set per tier (config.discovery.computeBudgetBytes). Windows are
 * clock hours (UTC), one control-plane row per (org, hour), so the reset needs no job.
 *
 * One round trip per request: the charge is an upsert that returns the new total. A request is
 * refused when the hour was already spent *before* it, so the request that crosses the line runs
 * (its estimate is known only roughly anyway) and every later one gets 429 until the hour turns.
 */
import { sql, type Kysely } from 'kysely';
import type { Tier } from '../../config/index.ts';
import type { DB } from '../../db/schema.ts';
import { DomainError } from '../../core/errors.ts';
import type { Clock } from '../../lib/clock.ts';

const HOUR_MS = 3_600_000;

/** Average stored width in bytes per value, by DuckDB column type (VARCHAR: a typical short string). */
const TYPE_WIDTH: Record<string, number> = { BIGINT: 8, INTEGER: 4, DOUBLE: 8, DATE: 4, BOOLEAN: 1, VARCHAR: 12 };

/** Bytes a scan of `rows` rows reading `columns` costs; unknown columns are charged as VARCHAR. */
export function estimateScanBytes(rows: number, columns: Iterable<string>, columnTypes: Record<string, string>, extraBytes = 0): number {
  let width = 0;
  for (const c of new Set(columns)) {
    const type = (columnTypes[c] ?? 'VARCHAR').split(' ')[0]!;
    width += TYPE_WIDTH[type] ?? 12;
  }
  return Math.ceil(rows * width + extraBytes);
}

export interface ComputeBudget {
  /** Charges `bytes` to the org's current hour; throws 429 compute_limit_exceeded when the hour was already spent. */
  charge(orgId: string, tier: Tier, bytes: number): Promise<{ usedBytes: number; budgetBytes: number }>;
}

export function createComputeBudget(deps: { db: Kysely<DB>; clock: Clock; budgets: Record<Tier, number> }): ComputeBudget {
  const { db, clock, budgets } = deps;
  return {
    async charge(orgId, tier, bytes) {
      const now = clock.now().getTime();
      const windowStart = new Date(Math.floor(now / HOUR_MS) * HOUR_MS);
      const budgetBytes = budgets[tier] ?? budgets.paygo;
      const row = await db
        .insertInto('compute_usage')
        .values({ org_id: orgId, window_start: windowStart, bytes: Math.round(bytes), queries: 1 })
        .onConflict((oc) =>
          oc.columns(['org_id', 'window_start']).doUpdateSet({
            bytes: sql`compute_usage.bytes + excluded.bytes`,
            queries: sql`compute_usage.queries + 1`,
          }),
        )
        .returning(['bytes'])
        .executeTakeFirstOrThrow();
      const usedBytes = Number(row.bytes);
      if (usedBytes - bytes >= budgetBytes) {
        const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + HOUR_MS - now) / 1000));
        throw new DomainError('compute_limit_exceeded', `The organization's hourly query-scan budget for tier ${tier} is spent.`, {
          details: { budget_bytes: budgetBytes },
          retryAfterSeconds,
          nextStep: `Retry after ${retryAfterSeconds} seconds, when the hourly budget resets, or upgrade the plan.`,
        });
      }
      return { usedBytes, budgetBytes };
    },
  };
}
