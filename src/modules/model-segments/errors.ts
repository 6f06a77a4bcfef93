/** Errors of similarity and propensity segments and their workflows, one factory per case. */
import { DomainError } from '../../core/errors.ts';
import { ModelInputError, ModelPrivacyFloorError } from '../../modelling/index.ts';

export const ModelSegmentErrors = {
  workflowNotFound: () =>
    new DomainError('WORKFLOW_NOT_FOUND', 'Workflow run was not found.', {
      nextStep: 'Use the workflow_run_id of a similarity or propensity segment you can see (GET /v1/segments/{id}).',
    }),
  notAwaitingReview: (status: string) =>
    new DomainError('WORKFLOW_NOT_AWAITING_REVIEW', `The workflow run is ${status}, not paused at a review gate.`, {
      details: { status },
      nextStep: 'Poll GET /v1/workflows/{id}; resume only while status is awaiting_review.',
    }),
  gateNotOpen: (given: string, open: string | null) =>
    new DomainError('GATE_NOT_OPEN', `Gate ${given} is not the open review gate${open ? ` (${open} is)` : ''}.`, {
      details: { gate_id: given, open_gate_id: open },
      nextStep: 'Send the gate_id shown as open_gate_id on GET /v1/workflows/{id}.',
    }),
  badResponse: (message: string) =>
    new DomainError('INVALID_GATE_RESPONSE', message, {
      nextStep: 'Send response "approve" or "reject"; at the seed_interpretation gate also {"action":"edit","filters":[...]}.',
    }),
  generationNotFound: (id: string, subtype: string) =>
    new DomainError(
      'GENERATION_METADATA_NOT_FOUND',
      `generation_metadata_id ${id} names no completed ${subtype} run of this organization.`,
      {
        nextStep: 'Send the workflow_run_id of a completed run of the same subtype, or build a new segment from a seed.',
      },
    ),
  notReady: (id: string, status: string) =>
    new DomainError('SEED_SEGMENT_NOT_READY', `Segment ${id} is ${status}; its members are not available to learn from.`, {
      details: { segment_id: id, status },
      nextStep: 'Wait until the segment is active (GET /v1/segments/{id}), or reactivate it, then retry.',
    }),
  seedDescription: (unrecognized: string[], notes: string[]) =>
    new DomainError('INVALID_SEED_DESCRIPTION', 'No catalog filter could be read from seed_description; nothing was created.', {
      details: { unrecognized, notes },
      nextStep:
        'Describe the seed with catalog words (for example "homeowners in California aged 30 to 45"), send hitl true to edit the filters at review, or use seed_segment_id.',
    }),
  missingSeed: (subtype: string) =>
    new DomainError(
      'INVALID_REQUEST',
      subtype === 'similarity'
        ? 'A similarity segment needs exactly one of seed_segment_id and seed_description (or generation_metadata_id).'
        : 'A propensity segment needs positive_class_segment_id (or generation_metadata_id).',
      {
        nextStep:
          subtype === 'similarity'
            ? 'Send seed_segment_id or seed_description, not both.'
            : 'Send positive_class_segment_id: the segment whose members are the positive class.',
      },
    ),
  attachFields: (fields: string[]) =>
    new DomainError(
      'INVALID_REQUEST',
      `${fields.join(', ')} cannot be combined with generation_metadata_id: the attached run is already complete.`,
      {
        details: { fields },
        nextStep: 'Remove them, or drop generation_metadata_id to build a new model.',
      },
    ),
  refreshFields: (fields: string[]) =>
    new DomainError('INVALID_REQUEST', `${fields.join(', ')} do not apply to similarity or propensity refresh.`, {
      details: { fields },
      nextStep: 'Send only hitl.',
    }),
  classGone: (id: string) =>
    new DomainError('SEGMENT_NOT_FOUND', `Segment ${id}, the seed or positive class of this model, was deleted.`, {
      nextStep: 'Create a new segment from an existing seed or positive class.',
    }),
  missingPositiveClass: (id: string) =>
    new DomainError(
      'MISSING_POSITIVE_CLASS_ID',
      `Segment ${id} is a legacy propensity segment without a positive class, so it cannot be rebuilt.`,
      {
        nextStep: 'Create a new propensity segment with positive_class_segment_id.',
      },
    ),
  launchFailed: (cause: unknown) =>
    new DomainError('WORKFLOW_LAUNCH_FAILED', 'The workflow could not be launched; nothing was changed.', {
      cause,
      nextStep: 'Retry the request in a few seconds.',
    }),
  belowFloor: (what: string, floor: number) =>
    new DomainError(
      'AGGREGATION_FLOOR_NOT_MET',
      `${what} has fewer than the privacy minimum of ${floor} persons, so no model is trained on it; nothing was created.`,
      {
        details: { floor },
        nextStep: 'Use a larger seed or positive class.',
      },
    ),
  excludedColumns: (e: ModelInputError) =>
    new DomainError('INVALID_EXCLUDED_COLUMNS', e.message, {
      issues: e.columns.map((c) => ({
        path: '$.excluded_columns',
        code: 'UNKNOWN_FILTER_FIELD',
        message: `Unknown column ${c}.`,
        suggestions: [...(e.suggestions[c] ?? [])],
      })),
      nextStep: 'Use comma-prefixed catalog field names, e.g. ",age,income_band" (GET /v1/catalog/fields).',
    }),
};

/** Engine errors that no retry can fix: they end the run. */
export const isFinalModelError = (e: unknown) =>
  e instanceof ModelInputError || e instanceof ModelPrivacyFloorError || (e as { code?: string })?.code === 'MODEL_TRAINING_FAILED';
