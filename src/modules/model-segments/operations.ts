/** Operations of similarity and propensity workflows (spec 4.3, 4.11). */
import { callerOf, defineOperation, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { ResumeBody, WorkflowParams, WorkflowSchema } from './schemas.ts';
import type { GateResponse, WorkflowService } from './workflows.ts';

const tags = ['Workflows'];

export function workflowOperations(deps: { workflows: WorkflowService }): Operation[] {
  const { workflows } = deps;
  return [
    defineOperation({
      id: 'getWorkflow',
      method: 'GET',
      path: '/v1/workflows/{workflow_run_id}',
      tags,
      access: 'discovery',
      effect: 'read',
      summary: 'A similarity or propensity build: steps, review gates, model quality',
      description:
        'The run behind a similarity or propensity segment (its workflow_run_id): status (queued, running, awaiting_review, completed, failed, cancelled), ' +
        'each step with its metrics, the review gates of a hitl run with what each shows, and the model summary (holdout AUC, top-decile lift, the catalog ' +
        'fields that drive it). Figures behind fewer persons than the privacy minimum are withheld. Free; reads the control plane only.',
      input: { params: WorkflowParams },
      status: 200,
      responses: { 200: WorkflowSchema },
      errors: ['WORKFLOW_NOT_FOUND'],
      agent: { tool: 'get_workflow' },
      examples: [
        {
          name: 'get',
          summary: 'A completed similarity build',
          request: { params: { workflow_run_id: EXAMPLE.workflowRunId } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params }) => workflows.get(callerOf(ctx), params.workflow_run_id),
    }),
    defineOperation({
      id: 'resumeWorkflow',
      method: 'POST',
      path: '/v1/workflows/{workflow_run_id}/resume',
      tags,
      access: 'creator',
      effect: 'write',
      summary: 'Answer the open review gate of a hitl build',
      description:
        'gate_id is the run\'s open_gate_id. response "approve" continues the build; "reject" ends it and fails the segment (segment.failed); ' +
        'at seed_interpretation, {"action":"edit","filters":[...]} replaces the seed filters (validated like any filter input, and the edited seed must reach the ' +
        'privacy minimum) and continues. 409 WORKFLOW_NOT_AWAITING_REVIEW when the run is not paused; 409 GATE_NOT_OPEN for another gate. Free.',
      input: { params: WorkflowParams, body: ResumeBody },
      status: 200,
      responses: { 200: WorkflowSchema },
      errors: [
        'WORKFLOW_NOT_FOUND',
        'WORKFLOW_NOT_AWAITING_REVIEW',
        'GATE_NOT_OPEN',
        'INVALID_GATE_RESPONSE',
        'INVALID_FILTER',
        'AGGREGATION_FLOOR_NOT_MET',
        'FILTER_CATALOG_UNAVAILABLE',
      ],
      agent: { tool: 'resume_workflow' },
      examples: [
        {
          name: 'approve',
          summary: 'Approve a gate (this run has completed, so the answer is 409)',
          request: { params: { workflow_run_id: EXAMPLE.workflowRunId }, body: { gate_id: 'model_evaluation', response: 'approve' } },
          response: { status: 409 },
        },
      ],
      handler: async (ctx, { params, body }) =>
        workflows.resume(callerOf(ctx), params.workflow_run_id, body as { gate_id: string; response: GateResponse }),
    }),
  ];
}
