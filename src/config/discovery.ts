/** The discovery section: compute budgets, the privacy floor, release cache, DuckDB settings. */
import { ConfigError, intSetting, jsonObjectSetting } from './settings.ts';
import { isTier, type Tier } from './tiers.ts';

/** Warehouse scan budget per organization per clock hour, by tier (docs/decisions/003-privacy-floor.md). */
export const DEFAULT_COMPUTE_BUDGETS: Record<Tier, number> = {
  paygo: 20 * 2 ** 30,
  pilot: 50 * 2 ** 30,
  growth: 250 * 2 ** 30,
  scale: 1024 * 2 ** 30,
  enterprise: 4096 * 2 ** 30,
};

export interface DiscoverySettings {
  /** Bytes of estimated scan per organization per hour. COMPUTE_BUDGETS='{"pilot":1073741824}'. */
  computeBudgetBytes: Record<Tier, number>;
  /** Smallest graph-derived count shown anywhere (spec 8: 50). PRIVACY_FLOOR. */
  privacyFloor: number;
  /** Secret the privacy noise derives from; null = generated once in the control plane (server_secrets). PRIVACY_NOISE_SECRET. */
  privacyNoiseSecret: string | null;
  /** k of k-anonymity for lookup rows: a row's returned combination must be shared by this many persons. PRIVACY_LOOKUP_K. */
  lookupK: number;
  /** Seconds GET /v1/data-release serves its snapshot (spec: about 15 minutes). DATA_RELEASE_CACHE_SECONDS. */
  releaseCacheSeconds: number;
  /** DuckDB memory_limit of the query process, e.g. "2GB"; null = DuckDB default. DUCKDB_MEMORY_LIMIT. */
  duckdbMemoryLimit: string | null;
  /** DuckDB threads; null = DuckDB default (all cores). DUCKDB_THREADS. */
  duckdbThreads: number | null;
  /**
   * The record of questions (docs/decisions/052): a run of PRIVACY_RUN_FLAG_AFTER (20) wordings of one
   * member set within PRIVACY_RUN_WINDOW_SECONDS (3600) is flagged; PRIVACY_RUN_ACTION `flag` (default),
   * `delay` (PRIVACY_RUN_DELAY_MS, 2000) or `refuse` (429 with Retry-After).
   */
  questionRuns: { windowSeconds: number; flagAfter: number; action: 'flag' | 'delay' | 'refuse'; delayMs: number };
}

const RUN_ACTIONS = ['flag', 'delay', 'refuse'] as const;

function runAction(env: NodeJS.ProcessEnv): 'flag' | 'delay' | 'refuse' {
  const v = env.PRIVACY_RUN_ACTION || 'flag';
  if (!(RUN_ACTIONS as readonly string[]).includes(v)) throw new ConfigError(`PRIVACY_RUN_ACTION must be one of ${RUN_ACTIONS.join(', ')}`);
  return v as 'flag' | 'delay' | 'refuse';
}

export function discoverySettings(env: NodeJS.ProcessEnv): DiscoverySettings {
  const budgets = { ...DEFAULT_COMPUTE_BUDGETS };
  for (const [tier, value] of Object.entries(jsonObjectSetting(env, 'COMPUTE_BUDGETS', '{"pilot":53687091200}') ?? {})) {
    if (!isTier(tier)) throw new ConfigError(`COMPUTE_BUDGETS: unknown tier "${tier}"`);
    if (!Number.isSafeInteger(value) || (value as number) < 1) throw new ConfigError(`COMPUTE_BUDGETS.${tier} must be a positive integer`);
    budgets[tier] = value as number;
  }
  return {
    computeBudgetBytes: budgets,
    privacyFloor: intSetting(env, 'PRIVACY_FLOOR', 50, 1, 1_000_000),
    privacyNoiseSecret: env.PRIVACY_NOISE_SECRET || null,
    lookupK: intSetting(env, 'PRIVACY_LOOKUP_K', 10, 2, 1_000_000),
    releaseCacheSeconds: intSetting(env, 'DATA_RELEASE_CACHE_SECONDS', 900, 0, 86_400),
    duckdbMemoryLimit: env.DUCKDB_MEMORY_LIMIT || null,
    duckdbThreads: env.DUCKDB_THREADS ? intSetting(env, 'DUCKDB_THREADS', 2, 1, 256) : null,
    questionRuns: {
      windowSeconds: intSetting(env, 'PRIVACY_RUN_WINDOW_SECONDS', 3600, 1, 7 * 86_400),
      flagAfter: intSetting(env, 'PRIVACY_RUN_FLAG_AFTER', 20, 2, 1_000_000),
      action: runAction(env),
      delayMs: intSetting(env, 'PRIVACY_RUN_DELAY_MS', 2000, 0, 60_000),
    },
  };
}
