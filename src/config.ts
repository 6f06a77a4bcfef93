import { resolve } from 'node:path';
import { DEFAULT_RATE_TABLE, USAGE_KINDS, type RateTable } from './modules/billing/rates.ts';

export const TIERS = ['paygo', 'pilot', 'growth', 'scale', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/**
 * Requests per minute per organization, by contract tier. `pilot` is the spec's example (100/min);
 * the others are ours, documented in docs/decisions/002-rate-limits.md. Override with RATE_LIMITS.
 */
export const DEFAULT_RATE_LIMITS: Record<Tier, number> = {
  paygo: 60,
  pilot: 100,
  growth: 600,
  scale: 3000,
  enterprise: 12000,
};

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  dataDir: string;
  /** PostgreSQL connection string; unset means the embedded PGlite store in `dataDir/pg`. */
  databaseUrl: string | null;
  host: string;
  port: number;
  role: Role;
  production: boolean;
  logLevel: string;
  /** Public base URL used in links the service hands out (upload URLs, docs). */
  publicUrl: string;
  rateLimits: Record<Tier, number>;
  /** Persons in the default synthetic graph generated on the first start of an empty data dir. */
  graphPersons: number;
  /** Seconds an in-flight request may take to finish on shutdown before connections are cut. */
  shutdownGraceSeconds: number;
  /** `ads serve` warms the current match index in the background after start (MATCH_WARMUP, default on). */
  matchWarmup: boolean;
  /** Webhook delivery (src/modules/webhooks). */
  webhooks: WebhookSettings;
  /** Discovery, warehouse and catalog (src/modules/discovery). */
  discovery: DiscoverySettings;
  /** Usage rate table in integer cents per unit, by kind and tier (src/modules/billing/rates.ts). USAGE_RATES. */
  usageRates: RateTable;
}

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
  /** Smallest count shown (spec 8: 50). PRIVACY_FLOOR. */
  privacyFloor: number;
  /** Seconds a count is remembered for the differencing guard; 0 disables it. DIFFERENCING_WINDOW_SECONDS. */
  differencingWindowSeconds: number;
  /** Seconds GET /v1/data-release serves its snapshot (spec: about 15 minutes). DATA_RELEASE_CACHE_SECONDS. */
  releaseCacheSeconds: number;
  /** DuckDB memory_limit of the query process, e.g. "2GB"; null = DuckDB default. DUCKDB_MEMORY_LIMIT. */
  duckdbMemoryLimit: string | null;
  /** DuckDB threads; null = DuckDB default (all cores). DUCKDB_THREADS. */
  duckdbThreads: number | null;
}

function discoverySettings(env: NodeJS.ProcessEnv): DiscoverySettings {
  const budgets = { ...DEFAULT_COMPUTE_BUDGETS };
  if (env.COMPUTE_BUDGETS) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(env.COMPUTE_BUDGETS) as Record<string, unknown>;
    } catch {
      throw new ConfigError('COMPUTE_BUDGETS must be a JSON object of bytes per hour such as {"pilot":53687091200}');
    }
    for (const [tier, value] of Object.entries(parsed)) {
      if (!(TIERS as readonly string[]).includes(tier)) throw new ConfigError(`COMPUTE_BUDGETS: unknown tier "${tier}"`);
      if (!Number.isSafeInteger(value) || (value as number) < 1) throw new ConfigError(`COMPUTE_BUDGETS.${tier} must be a positive integer`);
      budgets[tier as Tier] = value as number;
    }
  }
  return {
    computeBudgetBytes: budgets,
    privacyFloor: intSetting(env, 'PRIVACY_FLOOR', 50, 1, 1_000_000),
    differencingWindowSeconds: intSetting(env, 'DIFFERENCING_WINDOW_SECONDS', 600, 0, 86_400),
    releaseCacheSeconds: intSetting(env, 'DATA_RELEASE_CACHE_SECONDS', 900, 0, 86_400),
    duckdbMemoryLimit: env.DUCKDB_MEMORY_LIMIT || null,
    duckdbThreads: env.DUCKDB_THREADS ? intSetting(env, 'DUCKDB_THREADS', 2, 1, 256) : null,
  };
}

export interface WebhookSettings {
  /** Seconds before retry n (the last value repeats); jitter of +-25% is applied. WEBHOOK_RETRY_SCHEDULE="10,30,120". */
  retryScheduleSeconds: number[];
  /** Per-attempt timeout, connection to last response byte. WEBHOOK_TIMEOUT_MS. */
  attemptTimeoutMs: number;
  /** Attempts sent at once per worker process. WEBHOOK_CONCURRENCY. */
  concurrency: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=true|false; null follows the mode (allowed unless production). */
  allowPrivateTargets: boolean | null;
}

/** About 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h: nine retries span roughly 16 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [10, 30, 120, 600, 1800, 3600, 7200, 14400, 28800];

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  let schedule = DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  if (env.WEBHOOK_RETRY_SCHEDULE) {
    schedule = env.WEBHOOK_RETRY_SCHEDULE.split(',').map((part) => Number(part.trim()));
    if (schedule.some((s) => !Number.isFinite(s) || s < 0 || s > 86_400)) {
      throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds from 0 to 86400, e.g. "10,30,120"');
    }
  }
  return {
    retryScheduleSeconds: schedule,
    attemptTimeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    concurrency: intSetting(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
    allowPrivateTargets: boolSetting(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', null),
  };
}

export class ConfigError extends Error {}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function rateLimitSetting(env: NodeJS.ProcessEnv): Record<Tier, number> {
  const raw = env.RATE_LIMITS;
  if (!raw) return { ...DEFAULT_RATE_LIMITS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('RATE_LIMITS must be a JSON object such as {"pilot":100}');
  }
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const [tier, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!(TIERS as readonly string[]).includes(tier)) throw new ConfigError(`RATE_LIMITS: unknown tier "${tier}"`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new ConfigError(`RATE_LIMITS.${tier} must be a positive integer`);
    limits[tier as Tier] = value as number;
  }
  return limits;
}

/** USAGE_RATES='{"match.microbatch":{"pilot":4}}' overrides single entries of the default rate table. */
function usageRateSetting(env: NodeJS.ProcessEnv): RateTable {
  const table = Object.fromEntries(Object.entries(DEFAULT_RATE_TABLE).map(([k, v]) => [k, { ...v }])) as RateTable;
  if (!env.USAGE_RATES) return table;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(env.USAGE_RATES) as Record<string, unknown>;
  } catch {
    throw new ConfigError('USAGE_RATES must be a JSON object such as {"match.microbatch":{"pilot":4}}');
  }
  for (const [kind, rates] of Object.entries(parsed)) {
    if (!(USAGE_KINDS as readonly string[]).includes(kind)) throw new ConfigError(`USAGE_RATES: unknown usage kind "${kind}"`);
    for (const [tier, cents] of Object.entries((rates ?? {}) as Record<string, unknown>)) {
      if (!(TIERS as readonly string[]).includes(tier)) throw new ConfigError(`USAGE_RATES.${kind}: unknown tier "${tier}"`);
      if (!Number.isSafeInteger(cents) || (cents as number) < 0) throw new ConfigError(`USAGE_RATES.${kind}.${tier} must be a non-negative integer of cents`);
      table[kind as keyof RateTable][tier as Tier] = cents as number;
    }
  }
  return table;
}

/** `true` or `false`; unset or empty gives the fallback. */
function boolSetting<F extends boolean | null>(env: NodeJS.ProcessEnv, name: string, fallback: F): boolean | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false`);
  return raw === 'true';
}

/** Every setting, read and validated once from the environment (never at import time). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const role = (env.ADS_ROLE ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new ConfigError(`ADS_ROLE must be all, api or worker`);
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST ?? '0.0.0.0';
  return {
    dataDir: resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || null,
    host,
    port,
    role,
    production: env.NODE_ENV === 'production',
    logLevel: env.LOG_LEVEL ?? 'info',
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    rateLimits: rateLimitSetting(env),
    graphPersons: intSetting(env, 'GRAPH_PERSONS', 1_000_000, 0, 1_000_000_000),
    shutdownGraceSeconds: intSetting(env, 'SHUTDOWN_GRACE_SECONDS', 20, 0, 3600),
    matchWarmup: boolSetting(env, 'MATCH_WARMUP', true),
    webhooks: webhookSettings(env),
    discovery: discoverySettings(env),
    usageRates: usageRateSetting(env),
    ...overrides,
  };
}
