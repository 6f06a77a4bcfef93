/**
 * The one door for numbers derived from the graph that a customer sees on a workflow run (feature
 * weights and importances, holdout figures, seed and class sizes, the segment's size): every such
 * value passes through `protectNumbers` before it is answered (GET /v1/workflows/{id}, resume, review
 * gates, segment.ready). It is a port; `privacyProtect` is its implementation over the privacy layer
 * (docs/decisions/015-privacy-threat-model.md), plugged in by src/wiring.ts.
 *
 * - Counts get the layer's sticky noise, as a question: the labelled set's size is the question of
 *   that set (a seed given as filters answers what discovery answers for them; a seed segment what
 *   its composition answers), the segment's size the question of its members (so it equals the
 *   segment's `record_count`), the model's own counts (holdout, deciles, training sample) questions
 *   named by the model (labelled set + configuration), so the same figure is always the same number
 *   and a rebuilt model gives no fresh noise to average. Below the floor a count is null, as elsewhere.
 * - Real-valued figures (weights, importances, AUC, lift, rates, the score at the cut) get sticky noise
 *   of a fixed sd and are rounded, so one person's contribution (smaller than the noise, since every
 *   figure shown is learnt from at least the floor of persons, decision 024) cannot be read.
 */
import type { MembershipQuery } from '../../graph/index.ts';
import type { ModelRunMetrics } from '../../modelling/index.ts';
import { namedQuestion, type MeasuredSet, type Privacy, type Question } from '../privacy/index.ts';

export interface ProtectContext {
  orgId: string;
  /** What the numbers describe: the seed / positive-class step's size, or the model's metrics. */
  subject: 'seed' | 'positive_class' | 'model_metrics';
  /** The privacy minimum in force (spec 8: 50). */
  floor: number;
  /** The labelled set (seed or positive class) as a membership query; null when unknown (its size is then named by `model`). */
  labelled: MembershipQuery | null;
  /** The built segment's members; null before the model step. */
  members: MembershipQuery | null;
  /** Names the model: its labelled set and configuration (the sticky key of its own figures). */
  model: string;
  /** The labelled set as measured by member set (decision 052), when the caller measured it: its size is shown by the set. */
  labelledSet?: MeasuredSet;
}

export type ProtectNumbers = <T>(values: T, ctx: ProtectContext) => T;

/** For modules and tests built without the privacy layer (none in the service: src/wiring.ts plugs it in). */
export const identityProtect: ProtectNumbers = (values) => values;

type PrivacyPort = Pick<Privacy, 'question' | 'protectCount' | 'protectValue'>;

/** Noise (sd) and rounding of each kind of real-valued figure. */
const RATIO = { sd: 0.005, decimals: 2, min: 0, max: 1 };
const RATE = { sd: 0.002, decimals: 3, min: 0, max: 1 };
const LIFT = { sd: 0.02, decimals: 2, min: 0 };
const WEIGHT = { sd: 0.02, decimals: 2 };
const SHARE = { sd: 0.005, decimals: 3, min: 0, max: 1 };

function figures(privacy: PrivacyPort, ctx: ProtectContext) {
  const named = (name: string): Question => namedQuestion(`model|${ctx.model}|${name}`);
  const labelled = ctx.labelled ? privacy.question(ctx.labelled) : named('labelled');
  const count = (q: Question, n: number | null): number | null =>
    n === null ? null : privacy.protectCount({ question: q, trueCount: n }).count;
  const value = (name: string, v: number | null, kind: { sd: number; decimals: number; min?: number; max?: number }): number | null =>
    v === null || !Number.isFinite(v) ? v : privacy.protectValue({ name: `model|${ctx.model}|${name}`, value: v, ...kind });
  return { named, labelled, count, value };
}

function protectMetrics(privacy: PrivacyPort, m: ModelRunMetrics, ctx: ProtectContext): ModelRunMetrics {
  const { named, labelled, count, value } = figures(privacy, ctx);
  const size = count(ctx.members ? privacy.question(ctx.members) : named('record_count'), m.record_count);
  const h = m.holdout;
  const features = m.features.map((f) => {
    const weight = f.weight === undefined ? undefined : value(`weight|${f.feature}`, f.weight, WEIGHT)!;
    return {
      ...f,
      ...(weight === undefined ? {} : { weight, odds_ratio: Math.round(Math.exp(weight) * 100) / 100 }),
      importance: value(`importance|${f.feature}`, f.importance, SHARE)!,
    };
  });
  const shown = {
    ...m,
    candidates: m.candidates.map((c) => ({
      ...c,
      validation_auc: value(`candidate|${c.model_type}|${c.config}`, c.validation_auc, RATIO)!,
    })),
    validation_auc: value('validation_auc', m.validation_auc, RATIO),
    holdout: {
      ...h,
      persons: count(named('holdout.persons'), h.persons),
      positives: count(named('holdout.positives'), h.positives),
      prevalence: value('holdout.prevalence', h.prevalence, RATE),
      roc_auc: value('holdout.roc_auc', h.roc_auc, RATIO),
      log_loss: value('holdout.log_loss', h.log_loss, { ...RATIO, max: undefined }),
      // The top decile's lift is decile 1's: one figure, one layer.
      top_decile_lift: value('holdout.lift|1', h.top_decile_lift, LIFT),
      deciles: h.deciles.map((d) => ({
        decile: d.decile,
        persons: count(named(`holdout.decile|${d.decile}|persons`), d.persons),
        positives: count(named(`holdout.decile|${d.decile}|positives`), d.positives),
        lift: value(`holdout.lift|${d.decile}`, d.lift, LIFT),
      })),
      precision_at_cut: value('holdout.precision_at_cut', h.precision_at_cut, RATE),
      recall_at_cut: value('holdout.recall_at_cut', h.recall_at_cut, RATE),
    },
    features,
    field_importance: m.field_importance.map((f) => ({ field: f.field, importance: value(`field|${f.field}`, f.importance, SHARE)! })),
    training: {
      ...m.training,
      sample_persons: count(named('training.sample_persons'), m.training.sample_persons),
      sample_labelled: count(named('training.sample_labelled'), m.training.sample_labelled),
    },
    graph_persons: count(namedQuestion('graph_persons'), m.graph_persons),
    labelled_persons:
      ctx.labelledSet && m.labelled_persons !== null
        ? privacy.protectCount({ question: labelled, trueCount: ctx.labelledSet.n, set: ctx.labelledSet }).count
        : count(labelled, m.labelled_persons),
    // The default size is derived from the seed (ten times it): shown as the segment's size when they are one number.
    target_size: m.target_size === m.record_count ? size : count(named('target_size'), m.target_size),
    record_count: size,
    score_threshold: value('score_threshold', m.score_threshold, RATE),
  };
  // Counts below the floor are null here as everywhere the layer shows them (the metrics schema is open).
  return shown as unknown as ModelRunMetrics;
}

/** The class-size step's figures (`seed_persons` / `positive_class_persons`): the labelled set's question. */
function protectStep(privacy: PrivacyPort, values: Record<string, unknown>, ctx: ProtectContext): Record<string, unknown> {
  const { labelled, count } = figures(privacy, ctx);
  const set = ctx.labelledSet;
  const shown = (v: number) => (set ? privacy.protectCount({ question: labelled, trueCount: set.n, set }).count : count(labelled, v));
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'number' ? shown(v) : v]));
}

/** `protectNumbers` over the privacy layer. */
export function privacyProtect(privacy: PrivacyPort): ProtectNumbers {
  return (<T>(values: T, ctx: ProtectContext): T =>
    (ctx.subject === 'model_metrics'
      ? protectMetrics(privacy, values as ModelRunMetrics, ctx)
      : protectStep(privacy, values as Record<string, unknown>, ctx)) as T) as ProtectNumbers;
}
