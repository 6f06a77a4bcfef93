/** The webhooks section: retry schedule, attempt timeout and concurrency. */
import { ConfigError, intSetting } from './settings.ts';

export interface WebhookSettings {
  /** Seconds before retry n (the last value repeats); jitter of +-25% is applied. WEBHOOK_RETRY_SCHEDULE="10,30,120". */
  retryScheduleSeconds: number[];
  /** Per-attempt timeout, connection to last response byte. WEBHOOK_TIMEOUT_MS. */
  attemptTimeoutMs: number;
  /** Attempts sent at once per worker process. WEBHOOK_CONCURRENCY. */
  concurrency: number;
}

/** About 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h: nine retries span roughly 16 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [10, 30, 120, 600, 1800, 3600, 7200, 14400, 28800];

export function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
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
  };
}
