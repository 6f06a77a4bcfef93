/**
 * Creating, attaching and relaunching similarity and propensity segments (spec 3, 4.3). A build is a
 * pending segment plus a workflow run and its job, written in one transaction: either all exist or,
 * when the job cannot be enqueued, nothing changed (WORKFLOW_LAUNCH_FAILED, retry).
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { DB } from '../../db/schema.ts';
import type { FilterGroup } from '../../graph/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { ModelInputError, parseExcludedColumns, parseSeedDescription } from '../../modelling/index.ts';
import {
  affectedNextStep,
  persistentExpiry,
  type CreateSegmentInput,
  type CreatedSegmentDoc,
  type RefreshSegmentInput,
  type RefreshedSegmentDoc,
  type SegmentRow,
  type SegmentsApi,
} from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { ModelSegmentErrors } from './errors.ts';
import type { Seeds } from './seeds.ts';
import { runStore, type RunInput, type StepState, type WorkflowKind } from './store.ts';

export const WORKFLOW_JOB = 'model-segment-workflow';
export const WORKFLOW_QUEUE = { retryLimit: 2, retryDelay: 1, expireInSeconds: 4 * 3600 };
export interface WorkflowJobData {
  orgId: string;
  runId: string;
}

/** Subtype fields kept on the segment row (its `details`). */
export interface ModelDetails {
  input: RunInput;
  /** The audience created with the segment (create_audience), updated when the build completes. */
  wrapper_audience_id: string | null;
  /** Set when the segment attached an already-completed run (generation_metadata_id). */
  attached_run_id?: string;
}

export const modelDetails = (details: unknown) => details as ModelDetails;

export interface LaunchDeps {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  segments: SegmentsApi;
  events: Pick<EventService, 'validateWebhookUrl'>;
  seeds: Seeds;
  /** Test hook: called just before the job is enqueued (a failure there must change nothing). */
  beforeLaunch?: () => void | Promise<void>;
}

const MODEL_FIELDS = ['model_type', 'excluded_columns', 'model_name', 'target_size', 'hitl'] as const;

export function stepsOf(kind: WorkflowKind): StepState[] {
  const names = [kind === 'similarity' ? 'seed' : 'positive_class', 'train_and_score', 'publish'] as const;
  return names.map((name) => ({ name, status: 'pending', started_at: null, completed_at: null, metrics: null }));
}

export function createLauncher(deps: LaunchDeps) {
  const { db, queue, clock, segments, seeds } = deps;

  /** The queue must exist before a transaction sends to it (src/jobs/queue.ts). */
  async function ensureQueue() {
    try {
      await queue.ensureQueue(WORKFLOW_JOB, WORKFLOW_QUEUE);
    } catch (error) {
      throw ModelSegmentErrors.launchFailed(error);
    }
  }

  /** Run row + job in the caller's transaction; any failure of the enqueue is WORKFLOW_LAUNCH_FAILED. */
  async function launch(
    trx: Kysely<DB>,
    r: { orgId: string; segmentId: string; kind: WorkflowKind; hitl: boolean; version: number; input: RunInput; runId: string; now: Date },
  ) {
    await runStore.insert(trx, {
      id: r.runId,
      orgId: r.orgId,
      segmentId: r.segmentId,
      kind: r.kind,
      hitl: r.hitl,
      version: r.version,
      input: r.input,
      steps: stepsOf(r.kind),
      now: r.now,
    });
    try {
      await deps.beforeLaunch?.();
      await queue.send(WORKFLOW_JOB, { orgId: r.orgId, runId: r.runId } satisfies WorkflowJobData, { singletonKey: r.runId }, trx);
    } catch (error) {
      throw ModelSegmentErrors.launchFailed(error);
    }
  }

  async function runInput(viewer: Viewer, kind: WorkflowKind, input: CreateSegmentInput): Promise<RunInput> {
    const catalog = await segments.catalog();
    try {
      parseExcludedColumns(input.excluded_columns, catalog);
    } catch (e) {
      if (e instanceof ModelInputError) throw ModelSegmentErrors.excludedColumns(e);
      throw e;
    }
    const base = {
      model_type: input.model_type ?? 'BOOSTED_TREE_CLASSIFIER',
      excluded_columns: input.excluded_columns ?? null,
      model_name: input.model_name ?? null,
      target_size: input.target_size ?? null,
    } as const;
    if (kind === 'propensity') {
      if (!input.positive_class_segment_id) throw ModelSegmentErrors.missingSeed(kind);
      const row = await seeds.classSegment(viewer, input.positive_class_segment_id);
      await seeds.checkFloor(seeds.ofSegment(row, catalog), 'The positive class');
      return { ...base, positive_class_segment_id: row.id };
    }
    if ((input.seed_segment_id === undefined) === (input.seed_description === undefined)) throw ModelSegmentErrors.missingSeed(kind);
    if (input.seed_segment_id) {
      const row = await seeds.classSegment(viewer, input.seed_segment_id);
      await seeds.checkFloor(seeds.ofSegment(row, catalog), 'The seed');
      return { ...base, seed_segment_id: row.id };
    }
    const parsed = parseSeedDescription(input.seed_description!, catalog);
    const groups: FilterGroup[] | null = parsed.filters.length ? segments.parseFilters({ filters: parsed.filters }, catalog) : null;
    if (!groups && !input.hitl) throw ModelSegmentErrors.seedDescription(parsed.unrecognized, parsed.notes);
    // Without review the parsed seed is used as it is, so it must clear the floor now.
    if (groups && !input.hitl) await seeds.checkFloor(seeds.ofFilters(groups, catalog), 'The seed described');
    return {
      ...base,
      seed_description: input.seed_description!,
      seed_filter_groups: groups,
      seed_parse: { understood: parsed.understood, unrecognized: parsed.unrecognized, notes: parsed.notes },
    };
  }

  async function build(viewer: Viewer, kind: WorkflowKind, input: CreateSegmentInput): Promise<CreatedSegmentDoc> {
    if (input.webhook_url) deps.events.validateWebhookUrl(input.webhook_url);
    await segments.checkCampaign(viewer.orgId, input.campaign_id);
    const run = await runInput(viewer, kind, input);
    const release = segments.requireRelease();
    const now = clock.now();
    const id = newId('seg');
    const runId = newId('wfr');
    const visibility = input.visibility ?? 'org';
    await ensureQueue();
    const counting = { record_count: null, record_count_reason: 'counting' as const };
    const audienceId = await db.transaction().execute(async (trx) => {
      await segments.insert(trx, {
        id,
        orgId: viewer.orgId,
        name: input.name,
        subtype: kind,
        status: 'pending',
        visibility,
        createdBy: viewer.userId,
        count: counting,
        release,
        now,
        expiresAt: persistentExpiry(now),
        details: {},
        workflowRunId: runId,
        originCampaignId: input.campaign_id ?? null,
        webhookUrl: input.webhook_url ?? null,
      });
      const wrapper = input.create_audience
        ? await segments.insertWrapperAudience(trx, {
            orgId: viewer.orgId,
            segmentId: id,
            name: input.name,
            visibility,
            createdBy: viewer.userId,
            status: 'pending',
            count: counting,
            release,
            campaignId: input.campaign_id ?? null,
            now,
          })
        : null;
      await segments.setDetails(trx, viewer.orgId, id, { input: run, wrapper_audience_id: wrapper } satisfies ModelDetails);
      await launch(trx, { orgId: viewer.orgId, segmentId: id, kind, hitl: input.hitl ?? false, version: 1, input: run, runId, now });
      return wrapper;
    });
    const row = (await segments.findSegment(db, viewer.orgId, id))!;
    return { ...segments.presentSegment(row), ...(audienceId ? { audience_id: audienceId } : {}) };
  }

  /** generation_metadata_id: an already-completed run of this organization, attached as an active segment (no workflow). */
  async function attach(viewer: Viewer, kind: WorkflowKind, input: CreateSegmentInput): Promise<CreatedSegmentDoc> {
    const id = input.generation_metadata_id!;
    const foreign = [...(kind === 'similarity' ? (['seed_segment_id', 'seed_description'] as const) : []), ...MODEL_FIELDS].filter(
      (f) => input[f] !== undefined,
    );
    if (foreign.length) throw ModelSegmentErrors.attachFields(foreign);
    if (input.webhook_url) deps.events.validateWebhookUrl(input.webhook_url);
    await segments.checkCampaign(viewer.orgId, input.campaign_id);
    const run = await runStore.find(db, viewer.orgId, id);
    if (!run || run.kind !== kind || run.status !== 'completed' || !run.members_path || run.record_count === null)
      throw ModelSegmentErrors.generationNotFound(id, kind);
    // A propensity segment attached without its positive class is "legacy": it cannot be rebuilt (422 on refresh).
    const positive =
      kind === 'propensity' && input.positive_class_segment_id
        ? (await segments.findVisibleSegment(viewer, input.positive_class_segment_id)).id
        : null;
    const stored: RunInput = kind === 'similarity' ? run.input : { ...run.input, positive_class_segment_id: positive };
    const release = segments.requireRelease();
    const now = clock.now();
    const segmentId = newId('seg');
    const visibility = input.visibility ?? 'org';
    // The same member set as the run's segment: the same question, so the same shown size (decision 015).
    const count = segments.shownMembersCount(
      { kind: 'members', segmentId, subtype: kind, parquetPath: run.members_path },
      run.record_count,
    );
    const audienceId = await db.transaction().execute(async (trx) => {
      await segments.insert(trx, {
        id: segmentId,
        orgId: viewer.orgId,
        name: input.name,
        subtype: kind,
        status: 'active',
        visibility,
        createdBy: viewer.userId,
        count,
        release,
        now,
        expiresAt: persistentExpiry(now),
        membersPath: run.members_path,
        workflowRunId: run.id,
        originCampaignId: input.campaign_id ?? null,
        webhookUrl: input.webhook_url ?? null,
        details: {},
      });
      const wrapper = input.create_audience
        ? await segments.insertWrapperAudience(trx, {
            orgId: viewer.orgId,
            segmentId,
            name: input.name,
            visibility,
            createdBy: viewer.userId,
            status: 'active',
            count,
            release,
            campaignId: input.campaign_id ?? null,
            now,
          })
        : null;
      await segments.setDetails(trx, viewer.orgId, segmentId, {
        input: stored,
        wrapper_audience_id: wrapper,
        attached_run_id: run.id,
      } satisfies ModelDetails);
      return wrapper;
    });
    const row = (await segments.findSegment(db, viewer.orgId, segmentId))!;
    return { ...segments.presentSegment(row), ...(audienceId ? { audience_id: audienceId } : {}) };
  }

  return {
    create(viewer: Viewer, kind: WorkflowKind, input: CreateSegmentInput): Promise<CreatedSegmentDoc> {
      return input.generation_metadata_id !== undefined ? attach(viewer, kind, input) : build(viewer, kind, input);
    },

    /** Spec 3: active (or failed, expired) -> pending with a new workflow_run_id, from the stored seed or positive class. */
    async refresh(viewer: Viewer, row: SegmentRow, input: RefreshSegmentInput): Promise<RefreshedSegmentDoc> {
      const foreign = (['force', 'shard_count', 'compression'] as const).filter((f) => input[f] !== undefined);
      if (foreign.length) throw ModelSegmentErrors.refreshFields(foreign);
      const kind = row.subtype as WorkflowKind;
      const details = modelDetails(row.details);
      if (kind === 'propensity' && !details.input.positive_class_segment_id) throw ModelSegmentErrors.missingPositiveClass(row.id);
      const now = clock.now();
      const runId = newId('wfr');
      const affected = (await segments.segmentUsage(viewer.orgId, row.id)).map((u) => u.id);
      await ensureQueue();
      await db.transaction().execute(async (trx) => {
        const locked = (await segments.findSegment(trx, viewer.orgId, row.id, { forUpdate: true }))!;
        if (locked.workflow_run_id) {
          const previous = await runStore.find(trx, viewer.orgId, locked.workflow_run_id, { forUpdate: true });
          if (previous && previous.segment_id === row.id && !['completed', 'failed', 'cancelled'].includes(previous.status)) {
            await runStore.update(trx, viewer.orgId, previous.id, {
              status: 'cancelled',
              error_code: 'SUPERSEDED',
              error_message: `Superseded by ${runId}.`,
              completed_at: now,
              updated_at: now,
            });
          }
        }
        const version = locked.current_version + 1;
        await segments.markPending(trx, viewer.orgId, row.id, {
          newVersion: version,
          now,
          workflowRunId: runId,
          details: { ...details, attached_run_id: undefined },
        });
        await launch(trx, {
          orgId: viewer.orgId,
          segmentId: row.id,
          kind,
          hitl: input.hitl ?? false,
          version,
          input: details.input,
          runId,
          now,
        });
      });
      const after = (await segments.findSegment(db, viewer.orgId, row.id))!;
      return {
        ...segments.presentSegment(after),
        refreshed: true,
        affected_audiences: affected,
        next_step: `The model is rebuilt by workflow ${runId}: poll GET /v1/workflows/${runId} or GET /v1/segments/${row.id}${input.hitl ? ', and answer its review gates with POST /v1/workflows/{id}/resume' : ''}. ${affectedNextStep(affected)}`,
      };
    },
  };
}

export type Launcher = ReturnType<typeof createLauncher>;
