/**
 * GET /v1/workflows/{id} and POST /v1/workflows/{id}/resume (spec 4.3, 4.11). A run is visible when
 * its segment is (organization, private segments of other users). Resuming answers the open review
 * gate: approve continues (the job is enqueued again), reject ends the run and fails the segment
 * (segment.failed), and at the seed_interpretation gate an edit replaces the seed filters, which the
 * job re-counts before training.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SegmentsApi } from '../segments/index.ts';
import { ModelSegmentErrors } from './errors.ts';
import { WORKFLOW_JOB, WORKFLOW_QUEUE, type WorkflowJobData } from './launch.ts';
import { presentRun, type WorkflowDoc } from './present.ts';
import type { ProtectNumbers } from './protect.ts';
import type { Seeds } from './seeds.ts';
import { runStore, type GateState, type RunRow } from './store.ts';

export type GateResponse = 'approve' | 'reject' | { action: 'edit'; filters?: unknown; filter_groups?: unknown };

export interface WorkflowDeps {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  segments: SegmentsApi;
  seeds: Seeds;
  protect: ProtectNumbers;
  floor: number;
  /** Ends a run as failed (the job's transition, with segment.failed). */
  fail(run: RunRow, code: string, message: string): Promise<void>;
}

export function createWorkflowService(deps: WorkflowDeps) {
  const { db, clock, segments } = deps;

  async function findVisible(viewer: Viewer, id: string): Promise<RunRow> {
    const run = await runStore.find(db, viewer.orgId, id);
    if (!run) throw ModelSegmentErrors.workflowNotFound();
    try {
      await segments.findVisibleSegment(viewer, run.segment_id);
    } catch {
      throw ModelSegmentErrors.workflowNotFound();
    }
    return run;
  }

  const present = (run: RunRow) => presentRun(run, deps.protect, deps.floor);

  return {
    async get(viewer: Viewer, id: string): Promise<WorkflowDoc> {
      return present(await findVisible(viewer, id));
    },

    async resume(viewer: Viewer, id: string, input: { gate_id: string; response: GateResponse }): Promise<WorkflowDoc> {
      const seen = await findVisible(viewer, id);
      const action = typeof input.response === 'string' ? input.response : input.response.action;
      let editedGroups = null;
      if (action === 'edit') {
        if (input.gate_id !== 'seed_interpretation')
          throw ModelSegmentErrors.badResponse(
            'Only the seed_interpretation gate accepts an edit; answer this gate with "approve" or "reject".',
          );
        const edit = input.response as { filters?: unknown; filter_groups?: unknown };
        if ((edit.filters === undefined) === (edit.filter_groups === undefined))
          throw ModelSegmentErrors.badResponse('An edit carries exactly one of filters and filter_groups.');
        const catalog = await segments.catalog();
        editedGroups = segments.parseFilters(edit, catalog);
        await deps.seeds.checkFloor(deps.seeds.ofFilters(editedGroups, catalog), 'The edited seed');
      }
      await deps.queue.ensureQueue(WORKFLOW_JOB, WORKFLOW_QUEUE);
      const now = clock.now();
      const outcome = await db.transaction().execute(async (trx) => {
        const run = (await runStore.find(trx, viewer.orgId, seen.id, { forUpdate: true }))!;
        if (run.status !== 'awaiting_review') throw ModelSegmentErrors.notAwaitingReview(run.status);
        const open = run.gates.find((g) => g.status === 'open');
        if (!open || open.gate_id !== input.gate_id) throw ModelSegmentErrors.gateNotOpen(input.gate_id, open?.gate_id ?? null);
        const status: GateState['status'] = action === 'approve' ? 'approved' : action === 'reject' ? 'rejected' : 'edited';
        const gates = run.gates.map((g) => (g === open ? { ...g, status, response: input.response, resolved_at: now.toISOString() } : g));
        if (action === 'reject') {
          await runStore.update(trx, run.org_id, run.id, { gates, updated_at: now });
          return { run, reject: true };
        }
        const patch = editedGroups
          ? {
              input: { ...run.input, seed_filter_groups: editedGroups },
              // The seed step runs again on the edited filters (its count is the new seed's).
              steps: run.steps.map((s) =>
                s.name === 'seed' ? { ...s, status: 'pending' as const, completed_at: null, metrics: null } : s,
              ),
            }
          : {};
        await runStore.update(trx, run.org_id, run.id, { ...patch, gates, status: 'queued', updated_at: now });
        await deps.queue.send(WORKFLOW_JOB, { orgId: run.org_id, runId: run.id } satisfies WorkflowJobData, {}, trx);
        return { run, reject: false };
      });
      if (outcome.reject) await deps.fail(outcome.run, 'REJECTED_AT_REVIEW', `The build was rejected at the ${input.gate_id} review gate.`);
      return present((await runStore.find(db, viewer.orgId, seen.id))!);
    },
  };
}

export type WorkflowService = ReturnType<typeof createWorkflowService>;
