/**
 * Every setting, read and validated once from the environment when `loadConfig` is called (never at
 * import time). One section per area; each section's file documents its variables.
 */
import { resolve } from 'node:path';
import { billingSettings, type BillingSettings } from './billing.ts';
import { discoverySettings, type DiscoverySettings } from './discovery.ts';
import { exportSettings, type ExportSettings } from './exports.ts';
import { jobSettings, type JobSettings } from './jobs.ts';
import { oauthSettings, type OAuthSettings } from './oauth.ts';
import { ConfigError, boolSetting, intSetting, jsonObjectSetting } from './settings.ts';
import { TIERS, isTier, type Tier } from './tiers.ts';
import { webhookSettings, type WebhookSettings } from './webhooks.ts';
import { outboundSettings, type OutboundSettings } from './outbound.ts';
import { limitSettings, type LimitSettings } from './limits.ts';
import { integrationSettings, type IntegrationSettings } from './integrations.ts';
import { uploadSettings, type UploadSettings } from './uploads.ts';

export { ConfigError } from './settings.ts';
export { TIERS, isTier, type Tier } from './tiers.ts';
export { DEFAULT_COMPUTE_BUDGETS, type DiscoverySettings } from './discovery.ts';
export { DEFAULT_WEBHOOK_RETRY_SCHEDULE, type WebhookSettings } from './webhooks.ts';
export type { OAuthResources, OAuthSettings } from './oauth.ts';
export type { JobSettings } from './jobs.ts';
export type { IntegrationSettings } from './integrations.ts';
export { DEFAULT_UPLOAD_SETTINGS, type UploadSettings } from './uploads.ts';
export { DEFAULT_RATE_TABLE, USAGE_KINDS, type BillingSettings, type RateTable, type UsageKind } from './billing.ts';

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
  webhooks: WebhookSettings;
  outbound: OutboundSettings;
  limits: LimitSettings;
  /** What a file-match upload may expand to, and its longest line. */
  uploads: UploadSettings;
  discovery: DiscoverySettings;
  billing: BillingSettings;
  oauth: OAuthSettings;
  jobs: JobSettings;
  integrations: IntegrationSettings;
  exports: ExportSettings;
}

function rateLimitSetting(env: NodeJS.ProcessEnv): Record<Tier, number> {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const [tier, value] of Object.entries(jsonObjectSetting(env, 'RATE_LIMITS', '{"pilot":100}') ?? {})) {
    if (!isTier(tier)) throw new ConfigError(`RATE_LIMITS: unknown tier "${tier}"`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new ConfigError(`RATE_LIMITS.${tier} must be a positive integer`);
    limits[tier] = value as number;
  }
  return limits;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const role = (env.ADS_ROLE ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new ConfigError(`ADS_ROLE must be all, api or worker`);
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST ?? '0.0.0.0';
  const publicUrl = (overrides.publicUrl ?? env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    dataDir: resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || null,
    host,
    port,
    role,
    production: env.NODE_ENV === 'production',
    logLevel: env.LOG_LEVEL ?? 'info',
    publicUrl,
    rateLimits: rateLimitSetting(env),
    graphPersons: intSetting(env, 'GRAPH_PERSONS', 1_000_000, 0, 1_000_000_000),
    shutdownGraceSeconds: intSetting(env, 'SHUTDOWN_GRACE_SECONDS', 20, 0, 3600),
    matchWarmup: boolSetting(env, 'MATCH_WARMUP', true),
    webhooks: webhookSettings(env),
    outbound: outboundSettings(env),
    limits: limitSettings(env),
    uploads: uploadSettings(env),
    discovery: discoverySettings(env),
    billing: billingSettings(env),
    oauth: oauthSettings(env, publicUrl),
    jobs: jobSettings(env),
    integrations: integrationSettings(env, publicUrl),
    exports: exportSettings(env),
    ...overrides,
  };
}
