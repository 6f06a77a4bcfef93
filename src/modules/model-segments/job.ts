/**
 * The workflow job (pg-boss): runs a similarity or propensity build step by step, persisting each
 * step's state and metrics on the run, so a worker killed mid-run resumes at the first step not
 * completed (a step redone writes the same files: the member set goes to a temp name, then is
 * renamed). `hitl` runs pause at review gates; POST /v1/workflows/{id}/resume answers them and
 * enqueues the job again. Completion activates the segment with segment.ready; failure fails it
 * with segment.failed, each in one transaction with the run's final state.
 */
import type { Kysely } from 'kysely';
import { isDomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../lib/clock.ts';
import { runPropensity, runSimilarity, type ModelRunResult, type ModelWarehouse } from '../../modelling/index.ts';
import type { ObjectStore } from '../../objects/store.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { isFinalModelError } from './errors.ts';
import { modelDetails, WORKFLOW_JOB, WORKFLOW_QUEUE, type WorkflowJobData } from './launch.ts';
import { THRESHOLD_BAND } from '../privacy/index.ts';
import { modelSummary, protectContext, runMembership } from './present.ts';
import type { ProtectNumbers } from './protect.ts';
import type { Seeds } from './seeds.ts';
import { runStore, type GateId, type GateState, type RunRow, type StepName } from './store.ts';

export interface RunnerDeps {
  db: Kysely<DB>;
  clock: Clock;
  segments: SegmentsApi;
  events: Pick<EventService, 'emit'>;
  seeds: Seeds;
  warehouse: ModelWarehouse;
  objects: ObjectStore;
  floor: number;
  protect: ProtectNumbers;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Test hook: called after the model step persisted its result (a crash there must resume cleanly). */
  afterTrain?: (runId: string) => void | Promise<void>;
}

/** The review gate after a step, when the run is hitl. */
function gateAfter(run: RunRow, step: StepName): { id: GateId; question: string } | null {
  if (!run.hitl) return null;
  if (step === 'seed' && run.input.seed_description) {
    return { id: 'seed_interpretation', question: 'Is this how the seed description should read? Approve, reject, or edit the filters.' };
  }
  if (step === 'train_and_score') {
    return {
      id: 'model_evaluation',
      question: "Publish this model's segment? Check the holdout quality and the fields that drive it, then approve or reject.",
    };
  }
  return null;
}

export function membersKey(orgId: string, segmentId: string, version: number, runId: string): string {
  return `segments/${orgId}/${segmentId}/models/${runId}/members-v${version}.parquet`;
}

export function createWorkflowRunner(deps: RunnerDeps) {
  const { db, clock, segments } = deps;
  const iso = () => clock.now().toISOString();

  async function save(
    run: RunRow,
    patch: Partial<Pick<RunRow, 'status' | 'steps' | 'gates' | 'metrics' | 'model' | 'members_path' | 'record_count' | 'input'>>,
  ) {
    Object.assign(run, patch);
    await runStore.update(db, run.org_id, run.id, { ...patch, updated_at: clock.now() });
  }

  async function seedStep(run: RunRow): Promise<Record<string, unknown>> {
    const catalog = await segments.catalog();
    const set = await deps.seeds.labelledOf(run.org_id, run.input, catalog);
    const persons = await deps.seeds.checkFloor(set, run.kind === 'similarity' ? 'The seed' : 'The positive class');
    // Its figures are shown as this question's answers (decision 015), whatever happens to the seed segment later.
    const measured = await deps.seeds.measured(set);
    await save(run, {
      input: {
        ...run.input,
        labelled_query: set.query,
        ...(measured ? { labelled_set: measured.set, answered_query: measured.answered } : {}),
      },
    });
    return run.kind === 'similarity' ? { seed_persons: persons } : { positive_class_persons: persons };
  }

  async function modelStep(run: RunRow): Promise<Record<string, unknown>> {
    const fields = await segments.catalog();
    // The model learns from the persons the seed step answered for (no one a low-effect condition adds or removes).
    const labelled = deps.seeds.answeredOf(await deps.seeds.labelledOf(run.org_id, run.input, fields), run.input.answered_query, fields);
    const membersPath = deps.objects.pathOf(membersKey(run.org_id, run.segment_id, run.segment_version, run.id));
    const common = {
      fields,
      modelType: run.input.model_type,
      excludedColumns: run.input.excluded_columns,
      modelName: run.input.model_name,
      targetSize: run.input.target_size,
      privacyFloor: deps.floor,
      membersPath,
      // The seed step refused by the layer's sticky threshold; the engine does not refuse again at the exact floor.
      labelledFloor: deps.floor - THRESHOLD_BAND,
    };
    const r: ModelRunResult =
      run.kind === 'similarity'
        ? await runSimilarity(deps.warehouse, { ...common, seed: labelled })
        : // A customer's list as the positive class stays out of the segment (decision 051); similarity always leaves its seed out.
          await runPropensity(deps.warehouse, { ...common, positiveClass: labelled, excludePositiveClass: labelled.customerList });
    await save(run, { metrics: r.metrics, model: r.model, members_path: r.membersPath, record_count: r.metrics.record_count });
    return { ...modelSummary(r.metrics), timings_ms: r.timings_ms };
  }

  async function publish(run: RunRow): Promise<boolean> {
    const now = clock.now();
    return db.transaction().execute(async (trx) => {
      const locked = await runStore.find(trx, run.org_id, run.id, { forUpdate: true });
      const segment = await segments.findSegment(trx, run.org_id, run.segment_id, { forUpdate: true });
      if (!locked || locked.status !== 'running') return false;
      if (!segment || segment.workflow_run_id !== run.id) {
        // Deleted or relaunched meanwhile: this run's result is never published.
        await runStore.update(trx, run.org_id, run.id, {
          status: 'cancelled',
          error_code: segment ? 'SUPERSEDED' : 'SEGMENT_DELETED',
          completed_at: now,
          updated_at: now,
        });
        return false;
      }
      const details = modelDetails(segment.details);
      // The size is graph-derived: shown through the privacy layer as the question of its members.
      const shown = segments.shownMembersCount(runMembership(locked)!, locked.record_count!);
      await segments.markResolved(trx, run.org_id, run.segment_id, {
        recordCount: locked.record_count!,
        shown,
        inputRecordCount: null,
        matchCount: null,
        membersPath: locked.members_path!,
        details,
        wrapperAudienceId: details.wrapper_audience_id,
        now,
      });
      const steps = locked.steps.map((s) =>
        s.name === 'publish'
          ? { ...s, status: 'completed' as const, started_at: s.started_at ?? now.toISOString(), completed_at: now.toISOString() }
          : s,
      );
      await runStore.update(trx, run.org_id, run.id, { status: 'completed', steps, completed_at: now, updated_at: now });
      await deps.events.emit(trx, {
        orgId: run.org_id,
        type: 'segment.ready',
        subject: { kind: 'segment', id: run.segment_id, name: segment.name },
        data: {
          status: 'completed',
          subtype: run.kind,
          audience_id: details.wrapper_audience_id,
          record_count: shown.record_count,
          workflow_run_id: run.id,
          model_summary: modelSummary(deps.protect(locked.metrics!, protectContext(locked, 'model_metrics', deps.floor))),
        },
        webhookUrl: segment.webhook_url,
      });
      return true;
    });
  }

  /** Ends the run and, when it is still the segment's run, fails the segment (segment.failed). */
  async function fail(run: RunRow, code: string, message: string): Promise<void> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const locked = await runStore.find(trx, run.org_id, run.id, { forUpdate: true });
      if (!locked || ['completed', 'failed', 'cancelled'].includes(locked.status)) return;
      const steps = locked.steps.map((s) =>
        s.status === 'running' ? { ...s, status: 'failed' as const, completed_at: now.toISOString() } : s,
      );
      await runStore.update(trx, run.org_id, run.id, {
        status: 'failed',
        steps,
        error_code: code,
        error_message: message,
        completed_at: now,
        updated_at: now,
      });
      const segment = await segments.findSegment(trx, run.org_id, run.segment_id, { forUpdate: true });
      if (!segment || segment.workflow_run_id !== run.id) return;
      const details = modelDetails(segment.details);
      // The wrapper fails with its segment (a duplicate's details name its parent's wrapper: not that one).
      const wrapper = details.wrapper_audience_id;
      const refs = wrapper ? ((await segments.audienceRefs(trx, run.org_id, [wrapper])).get(wrapper) ?? []) : [];
      const audienceIds = refs.some((r) => r.segment_id === run.segment_id) ? [wrapper!] : [];
      await segments.markFailed(trx, run.org_id, run.segment_id, { message, audienceIds, now });
      await deps.events.emit(trx, {
        orgId: run.org_id,
        type: 'segment.failed',
        subject: { kind: 'segment', id: run.segment_id, name: segment.name },
        data: {
          status: 'failed',
          subtype: run.kind,
          audience_id: details.wrapper_audience_id,
          workflow_run_id: run.id,
          error_code: code,
          error_message: message,
          failed_at: now.toISOString(),
        },
        webhookUrl: segment.webhook_url,
      });
    });
  }

  /** Runs the steps not completed yet; returns what happened. */
  async function advance(run: RunRow): Promise<string> {
    for (const name of run.steps.map((s) => s.name)) {
      const at = run.steps.findIndex((s) => s.name === name);
      if (name === 'publish') return (await publish(run)) ? 'completed' : 'superseded';
      if (run.steps[at]!.status !== 'completed') {
        await save(run, { steps: run.steps.map((s, j) => (j === at ? { ...s, status: 'running', started_at: iso() } : s)) });
        const metrics = name === 'train_and_score' ? await modelStep(run) : await seedStep(run);
        await save(run, { steps: run.steps.map((s, j) => (j === at ? { ...s, status: 'completed', completed_at: iso(), metrics } : s)) });
        if (name === 'train_and_score') await deps.afterTrain?.(run.id);
      }
      const gate = gateAfter(run, name);
      if (gate && !run.gates.some((g) => g.gate_id === gate.id)) {
        const open: GateState = {
          gate_id: gate.id,
          step: name,
          status: 'open',
          question: gate.question,
          shows: {},
          response: null,
          opened_at: iso(),
          resolved_at: null,
        };
        await save(run, { status: 'awaiting_review', gates: [...run.gates, open] });
        return 'awaiting_review';
      }
    }
    return 'completed';
  }

  const definition: JobDefinition<WorkflowJobData> = {
    name: WORKFLOW_JOB,
    queue: WORKFLOW_QUEUE,
    work: { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2, includeMetadata: true } as JobDefinition['work'],
    async handle(data, job) {
      const run = await runStore.find(db, data.orgId, data.runId);
      // Settled, paused or superseded: nothing to do, so a duplicate delivery is harmless.
      if (!run || !['queued', 'running'].includes(run.status)) return { skipped: true };
      const segment = await segments.findSegment(db, run.org_id, run.segment_id);
      if (!segment || segment.workflow_run_id !== run.id) {
        await runStore.update(db, run.org_id, run.id, {
          status: 'cancelled',
          error_code: segment ? 'SUPERSEDED' : 'SEGMENT_DELETED',
          completed_at: clock.now(),
          updated_at: clock.now(),
        });
        return { skipped: true };
      }
      await runStore.update(db, run.org_id, run.id, { status: 'running', attempts: run.attempts + 1, updated_at: clock.now() });
      run.status = 'running';
      const ids = { org_id: run.org_id, segment_id: run.segment_id, workflow_run_id: run.id };
      try {
        const outcome = await advance(run);
        deps.log?.info({ ...ids, outcome }, 'model workflow advanced');
        return { outcome };
      } catch (error) {
        const final = isFinalModelError(error) || isDomainError(error) || job.retryCount >= (WORKFLOW_QUEUE.retryLimit ?? 0);
        deps.log?.warn(
          { ...ids, final, err: (error as Error).message },
          final ? 'model workflow failed' : 'model workflow step failed; it will be retried',
        );
        if (!final) throw error;
        const code = (error as { code?: string }).code ?? 'WORKFLOW_FAILED';
        const message =
          isFinalModelError(error) || isDomainError(error)
            ? (error as Error).message
            : 'The model build failed after retries; refresh the segment to try again.';
        await fail(run, code, message);
        return { failed: code };
      }
    },
  };

  return { definition, fail };
}
