/** The jobs section: how a crashed worker's jobs are found and handed to another (issue 12, ADR 026). */
import { intSetting } from './settings.ts';

export interface JobSettings {
  /**
   * A running job's worker renews its claim every half of this; a job whose claim was not renewed for
   * this long (its worker died) is failed and retried on another worker. JOB_HEARTBEAT_SECONDS, at least
   * 10 (pg-boss's minimum).
   */
  heartbeatSeconds: number;
  /** How often the queue looks for such jobs (and expired ones). JOB_SUPERVISE_SECONDS. */
  superviseSeconds: number;
  /**
   * File matches one worker process resolves at once (FILE_MATCH_CONCURRENCY, default 2): a long match,
   * or a large upload still being refused, never holds an organization's next match (or another
   * organization's) behind it. Each running match has its staging threads and warehouse statements.
   */
  fileMatchConcurrency: number;
}

/**
 * Defaults: a dead worker's job is found within 30 + 30 s and retried 2 s later, well inside two minutes,
 * at the cost of one small UPDATE per running job every 15 s.
 */
export function jobSettings(env: NodeJS.ProcessEnv): JobSettings {
  return {
    heartbeatSeconds: intSetting(env, 'JOB_HEARTBEAT_SECONDS', 30, 10, 3600),
    superviseSeconds: intSetting(env, 'JOB_SUPERVISE_SECONDS', 30, 1, 600),
    fileMatchConcurrency: intSetting(env, 'FILE_MATCH_CONCURRENCY', 2, 1, 16),
  };
}
