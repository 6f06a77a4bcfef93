/**
 * The privacy layer (docs/decisions/015-privacy-threat-model.md): every graph-derived number and row
 * shown to a customer goes through here: discovery count, groups and breakdowns, lookup rows, segment
 * and audience `record_count` (and so campaign and list summaries, which show stored counts). Later
 * users: the free numbers of delivery quotes (`billing_count`, `already_licensed_count`), model feature
 * weights, MCP and A2A answers.
 *
 * Design (docs/decisions/052-privacy-by-member-set.md, after 015): a question is measured by its member
 * set (`measure`: count + set hash of the question and of each form without one condition, branch or
 * segment, in one scan); conditions of low effect are dropped; the set is shown with noise and a
 * threshold seeded by its hash plus static layers of its remaining conditions (`protectSet`,
 * `protectMeasuredGroups`); masked, k-anonymous lookup rows. No state: the same set gets the same
 * answer in every process, forever, however it is asked, and no honest question is refused.
 *
 * API (`createPrivacy` returns it):
 * - `question(query)`: the canonical question of a MembershipQuery (raw filters or a composition).
 *   `namedQuestion(key, conditions)` builds one for numbers that are not a membership query (a quote:
 *   key `quote|<audience>|<field>`, conditions the canonical keys of what it depends on).
 * - `protectCount({ question, trueCount, facet? })` -> `{ count, suppressed }`: true + noise (never
 *   below the floor), or suppressed (null) below the floor and the question's sticky threshold.
 * - `protectTotal(...)`: the same, 422 AGGREGATION_FLOOR_NOT_MET when suppressed (discovery totals).
 * - `shownCount(...)`: `{ record_count, record_count_reason }` for stored counts.
 * - `protectGroups({ question, dimension, buckets, top? })`: groups noised one by one, suppressed ones counted.
 * - `lookupParts(query)` / `joinParts(parts)` / `partEligible(n)` / `maskedLookupSql(...)`: masked lookup rows.
 * Exempt (exact, never through here): counts of a customer's own uploaded list alone (file match
 * input and match counts) and what a customer has paid for and received (a delivery's exported rows).
 * Error hints ("did you mean") come from the catalog and reference vocabularies, never from counts.
 */
import type { ServerKeys } from '../../db/server-secrets.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { questionOf } from './question.ts';
import { createPrivacyService } from './service.ts';

/** server_secrets name of the noise secret (created on first start, shared by every process, never rotated). */
export const PRIVACY_NOISE_SECRET = 'privacy_noise';

export function createPrivacyWithSecret(o: { secret: string; floor: number; lookupK: number }) {
  return { ...createPrivacyService(o), question: (query: MembershipQuery) => questionOf(query) };
}

/**
 * The privacy layer; the secret comes from `secret` when configured (PRIVACY_NOISE_SECRET), else from the
 * control plane's server keys (wrapped under the master key like the others; it never rolls).
 */
export async function createPrivacy(deps: { keys: Pick<ServerKeys, 'secret'>; floor: number; lookupK: number; secret?: string | null }) {
  const secret = deps.secret || (await deps.keys.secret(PRIVACY_NOISE_SECRET));
  return createPrivacyWithSecret({ secret, floor: deps.floor, lookupK: deps.lookupK });
}

export type Privacy = ReturnType<typeof createPrivacyWithSecret>;
export { floorNotMet, type Bucket, type ProtectedBuckets, type ProtectedCount, type ShownCount } from './service.ts';
export { namedQuestion, questionOf, setLayers, lookupParts, joinParts, type Question } from './question.ts';
export { minBucket } from './set-stats.ts';
export { createGraphFigures, type GraphFigures } from './graph-figures.ts';
export {
  MAX_FORMS_PER_SCAN,
  hex,
  xorHex,
  type Measured,
  type MeasuredBucket,
  type MeasuredSet,
  type MeasureOptions,
  type Run,
  type SetCount,
} from './sets.ts';
export { formsOf, itemsOf, withoutItems } from './forms.ts';
export {
  createQuestionLog,
  privacyMetrics,
  DEFAULT_QUESTION_LOG,
  type QuestionLog,
  type QuestionLogSettings,
  type QuestionRecorder,
} from './question-log.ts';
export { canonicalBranch, conditionKey } from './canonical.ts';
export { maskedLookupSql, shownAs, generalizationOf, BANDS } from './lookup.ts';
export {
  LAYER_SD,
  THRESHOLD_BAND,
  STATIC_SD,
  DYNAMIC_SD,
  LOW_EFFECT,
  layerNoise,
  totalNoise,
  threshold,
  noiseBound,
  lowEffectThreshold,
} from './noise.ts';
