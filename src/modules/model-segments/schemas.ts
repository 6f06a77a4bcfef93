/** Schemas of the workflow operations (spec 4.11: shapes not shown there; ours, decision 036). */
import { Type } from 'typebox';
import { DateTime, Literals, Nullable } from '../../core/schema.ts';

const Obj = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const WorkflowParams = Type.Object({ workflow_run_id: Type.String({ minLength: 1, maxLength: 200 }) });

const StepSchema = Type.Object({
  name: Literals('seed', 'positive_class', 'train_and_score', 'publish'),
  status: Literals('pending', 'running', 'completed', 'failed'),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  metrics: Nullable(Obj('What the step measured: class size; model quality and timings')),
});

const GateSchema = Type.Object({
  gate_id: Literals('seed_interpretation', 'model_evaluation'),
  step: Type.String({ description: 'The step the gate follows' }),
  status: Literals('open', 'approved', 'rejected', 'edited'),
  question: Type.String({ description: 'What the person must decide' }),
  shows: Obj('What the decision rests on: the seed read as filters (with words not understood), or the model summary'),
  response: Type.Unknown({ description: 'The answer given, null while open' }),
  opened_at: Type.String(),
  resolved_at: Nullable(Type.String()),
});

const SummarySchema = Type.Object({
  model_type: Type.String(),
  selected_model_type: Type.String(),
  model_name: Nullable(Type.String()),
  holdout_auc: Nullable(Type.Number()),
  top_decile_lift: Nullable(Type.Number()),
  validation_auc: Nullable(Type.Number()),
  target_size: Nullable(Type.Integer({ description: 'Through the privacy layer: noised; null below the privacy floor' })),
  record_count: Nullable(Type.Integer({ description: "The segment's record_count (the same number)" })),
  top_fields: Type.Array(Type.Object({ field: Type.String(), importance: Type.Number() }), {
    description: 'Catalog fields that drive the model most',
  }),
});

export const WorkflowSchema = Type.Object({
  workflow_run_id: Type.String(),
  segment_id: Type.String(),
  subtype: Literals('similarity', 'propensity'),
  status: Literals('queued', 'running', 'awaiting_review', 'completed', 'failed', 'cancelled'),
  hitl: Type.Boolean(),
  segment_version: Type.Integer({ description: 'The segment version this run builds' }),
  open_gate_id: Nullable(
    Type.String({ description: 'The gate to answer with POST /v1/workflows/{id}/resume while status is awaiting_review' }),
  ),
  steps: Type.Array(StepSchema),
  gates: Type.Array(GateSchema),
  model_summary: Nullable(SummarySchema),
  metrics: Nullable(
    Obj(
      'Full model metrics: holdout AUC, log loss, deciles and lift, precision/recall at the cut, feature weights and importances in catalog names',
    ),
  ),
  record_count: Nullable(Type.Integer()),
  attempts: Type.Integer({ description: 'Times a worker took the run up (a crashed attempt is retried from the last completed step)' }),
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
  completed_at: Nullable(DateTime()),
});

export const ResumeBody = Type.Object(
  {
    gate_id: Type.String({ minLength: 1, maxLength: 100, description: 'open_gate_id of the run' }),
    response: Type.Union([
      Literals('approve', 'reject'),
      Type.Object(
        {
          action: Type.Literal('edit'),
          filters: Type.Optional(Type.Unknown({ description: 'Corrected seed: flat filter conditions' })),
          filter_groups: Type.Optional(Type.Unknown({ description: 'Corrected seed: filter groups' })),
        },
        { additionalProperties: false, description: 'seed_interpretation only: replace the seed filters' },
      ),
    ]),
  },
  { additionalProperties: false },
);
