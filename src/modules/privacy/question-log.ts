/**
 * Defence in depth (docs/decisions/052-privacy-by-member-set.md): the organization's record of questions.
 *
 * Each discovery question is recorded with the member set it was answered for (its hash, after
 * low-effect removal) and a hash of its wording. Averaging attacks ask one set over and over in new
 * wordings (a redundant branch, a condition singling out one person, a new padding of the same
 * people): after low-effect removal those all answer the same set. A run of at least `flagAfter`
 * distinct wordings of one set within `windowSeconds` is flagged: counted in /metrics, logged, kept
 * in the table (the audit trail) and, by `action`, answered after a delay or refused with 429 and
 * Retry-After. Honest use rewords one set a handful of times at most, and repeating one question is
 * one wording: it is never flagged.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { Counter } from 'prom-client';
import { DomainError } from '../../core/errors.ts';
import type { Viewer } from '../../core/caller.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { questionOf } from './question.ts';
import type { Measured } from './sets.ts';

export interface QuestionLogSettings {
  /** Window of a run, in seconds. */
  windowSeconds: number;
  /** Distinct wordings of one set within the window that flag the run. */
  flagAfter: number;
  /** What a flagged question gets: only flagged, answered after `delayMs`, or refused (429). */
  action: 'flag' | 'delay' | 'refuse';
  delayMs: number;
}

export const DEFAULT_QUESTION_LOG: QuestionLogSettings = { windowSeconds: 3600, flagAfter: 20, action: 'flag', delayMs: 2000 };

/** Process-wide counters, registered into each app's registry (src/http/metrics.ts). */
export const privacyMetrics = {
  flagged: new Counter({
    name: 'ads_privacy_flagged_questions_total',
    help: 'Discovery questions in a run of many wordings of one member set (possible averaging attack), by action taken',
    labelNames: ['action'],
    registers: [],
  }),
  lowEffect: new Counter({
    name: 'ads_privacy_low_effect_questions_total',
    help: 'Questions answered without one or more conditions, branches or segments of low effect',
    registers: [],
  }),
};

export function createQuestionLog(deps: {
  db: Kysely<any>;
  now: () => Date;
  settings?: Partial<QuestionLogSettings>;
  log?: { warn(obj: object, msg: string): void };
}) {
  const s = { ...DEFAULT_QUESTION_LOG, ...deps.settings };
  return {
    settings: s,
    /**
     * Records a question and applies the run rule. Returns whether it was flagged; may wait
     * (`delay`) or throw 429 rate_limit_exceeded (`refuse`) for a flagged one.
     */
    async record(viewer: Viewer, query: MembershipQuery, measured: Pick<Measured, 'total' | 'lowEffect'>): Promise<boolean> {
      const wording = createHash('sha256').update(questionOf(query).key).digest('base64url').slice(0, 22);
      const at = deps.now();
      const since = new Date(at.getTime() - s.windowSeconds * 1000);
      const { rows } = await sql<{ variants: number | string; seen: boolean }>`
        SELECT count(DISTINCT wording) AS variants, bool_or(wording = ${wording}) AS seen FROM privacy_questions
        WHERE org_id = ${viewer.orgId} AND set_hash = ${measured.total.h} AND asked_at > ${since}`.execute(deps.db);
      const variants = Number(rows[0]?.variants ?? 0) + (rows[0]?.seen ? 0 : 1);
      const flagged = variants >= s.flagAfter && measured.total.n > 0;
      await sql`INSERT INTO privacy_questions (org_id, asked_at, set_hash, wording, low_effect, flagged)
        VALUES (${viewer.orgId}, ${at}, ${measured.total.h}, ${wording}, ${measured.lowEffect}, ${flagged})`.execute(deps.db);
      if (measured.lowEffect > 0) privacyMetrics.lowEffect.inc();
      if (!flagged) return false;
      privacyMetrics.flagged.labels(s.action).inc();
      deps.log?.warn(
        { org_id: viewer.orgId, set_hash: measured.total.h, wordings: variants, action: s.action },
        'privacy: a run of many wordings of one member set',
      );
      if (s.action === 'delay') await new Promise((r) => setTimeout(r, s.delayMs));
      if (s.action === 'refuse') {
        throw new DomainError(
          'rate_limit_exceeded',
          `Too many differently worded questions over the same people (${variants} within ${s.windowSeconds} s).`,
          {
            retryAfterSeconds: s.windowSeconds,
            nextStep: 'Ask varied questions; rewording one question does not change its answer.',
          },
        );
      }
      return true;
    },
  };
}

export type QuestionLog = ReturnType<typeof createQuestionLog>;
export type QuestionRecorder = Pick<QuestionLog, 'record'>;
