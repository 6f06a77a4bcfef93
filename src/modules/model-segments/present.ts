/**
 * Workflow run -> API document. Every graph-derived number a customer sees (class sizes, holdout
 * figures, feature weights and importances) goes through `protectNumbers` here or in the job's
 * segment.ready event, and nowhere else.
 */
import type { MembershipQuery } from '../../graph/index.ts';
import type { ModelRunMetrics } from '../../modelling/index.ts';
import { questionOf } from '../privacy/index.ts';
import type { ProtectContext, ProtectNumbers } from './protect.ts';
import type { GateState, RunRow } from './store.ts';

/** The few figures that say how good a model is and why, for the review gate, the run and segment.ready. */
export function modelSummary(m: ModelRunMetrics) {
  return {
    model_type: m.model_type,
    selected_model_type: m.selected_model_type,
    model_name: m.model_name,
    holdout_auc: m.holdout.roc_auc,
    top_decile_lift: m.holdout.top_decile_lift,
    validation_auc: m.validation_auc,
    target_size: m.target_size,
    record_count: m.record_count,
    top_fields: m.field_importance.slice(0, 5),
  };
}

export type ModelSummary = ReturnType<typeof modelSummary>;

/** The built segment's members (a composition of its one member set), once the model step wrote them. */
export function runMembership(run: RunRow) {
  return run.members_path
    ? { kind: 'members' as const, segmentId: run.segment_id, subtype: run.kind, parquetPath: run.members_path }
    : null;
}

/** What the privacy layer needs to answer a run's figures: the labelled set's question, the members' and the model's name. */
export function protectContext(run: RunRow, subject: ProtectContext['subject'], floor: number): ProtectContext {
  const groups = run.input.seed_filter_groups;
  const labelled: MembershipQuery | null = run.input.labelled_query ?? (groups?.length ? { kind: 'filters', groups } : null);
  const membership = runMembership(run);
  const model = JSON.stringify([
    run.kind,
    labelled ? questionOf(labelled).key : `run:${run.id}`,
    run.input.model_type,
    run.input.excluded_columns,
    run.input.target_size,
  ]);
  return {
    orgId: run.org_id,
    subject,
    floor,
    labelled,
    model,
    ...(run.input.labelled_set ? { labelledSet: run.input.labelled_set } : {}),
    members: membership ? { kind: 'composition', composition: { include: [membership], exclude: [], setLogic: 'union' } } : null,
  };
}

function gateShows(run: RunRow, gate: GateState, summary: ModelSummary | null): Record<string, unknown> {
  if (gate.gate_id === 'seed_interpretation') {
    const seedStep = run.steps.find((s) => s.name === 'seed');
    return {
      seed_description: run.input.seed_description ?? null,
      filter_groups: run.input.seed_filter_groups ?? [],
      understood: run.input.seed_parse?.understood ?? [],
      unrecognized: run.input.seed_parse?.unrecognized ?? [],
      notes: run.input.seed_parse?.notes ?? [],
      seed_persons: seedStep?.metrics?.seed_persons ?? null,
    };
  }
  return { model_summary: summary };
}

export function presentRun(run: RunRow, protect: ProtectNumbers, floor: number) {
  const metrics = run.metrics ? protect(run.metrics, protectContext(run, 'model_metrics', floor)) : null;
  const summary = metrics ? modelSummary(metrics) : null;
  const classSize = protectContext(run, run.kind === 'similarity' ? 'seed' : 'positive_class', floor);
  // The model step's figures are the summary of the protected metrics (one answer per figure), with its timings.
  const steps = run.steps.map((s) => ({
    ...s,
    metrics: !s.metrics
      ? null
      : s.name === 'train_and_score'
        ? summary
          ? { ...summary, timings_ms: s.metrics.timings_ms ?? null }
          : null
        : protect(s.metrics, classSize),
  }));
  const shown = { ...run, steps };
  const open = run.gates.find((g) => g.status === 'open') ?? null;
  return {
    workflow_run_id: run.id,
    segment_id: run.segment_id,
    subtype: run.kind,
    status: run.status,
    hitl: run.hitl,
    segment_version: run.segment_version,
    open_gate_id: run.status === 'awaiting_review' && open ? open.gate_id : null,
    steps,
    gates: run.gates.map((g) => ({ ...g, shows: gateShows(shown, g, summary) })),
    model_summary: summary,
    metrics,
    record_count: metrics ? metrics.record_count : null,
    attempts: run.attempts,
    error_code: run.error_code,
    error_message: run.error_message,
    created_at: run.created_at.toISOString(),
    updated_at: run.updated_at.toISOString(),
    completed_at: run.completed_at ? run.completed_at.toISOString() : null,
  };
}

export type WorkflowDoc = ReturnType<typeof presentRun>;
