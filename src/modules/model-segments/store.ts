/**
 * Workflow run SQL (the workflow_runs table is owned by this area). JSON columns are written as
 * strings, so node-postgres stores them as JSON on PostgreSQL (not as PG arrays).
 */
import type { MeasuredSet } from '../privacy/index.ts';
import type { Kysely, Selectable } from 'kysely';
import type { DB, WorkflowRunsTable } from '../../db/schema.ts';
import type { ModelRunMetrics, StoredModel } from '../../modelling/index.ts';
import type { FilterGroup } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';

export type WorkflowKind = 'similarity' | 'propensity';
export type RunStatus = 'queued' | 'running' | 'awaiting_review' | 'completed' | 'failed' | 'cancelled';
export type StepName = 'seed' | 'positive_class' | 'train_and_score' | 'publish';
export type GateId = 'seed_interpretation' | 'model_evaluation';

/** What a run builds from; stored once, relaunches copy it. */
export interface RunInput {
  seed_segment_id?: string | null;
  seed_description?: string | null;
  /** The seed as filters (parsed from the description, or the reviewer's edit). */
  seed_filter_groups?: FilterGroup[] | null;
  /** What the parser understood and did not (shown at the seed gate). */
  seed_parse?: { understood: unknown[]; unrecognized: string[]; notes: string[] } | null;
  positive_class_segment_id?: string | null;
  model_type: 'BOOSTED_TREE_CLASSIFIER' | 'LOGISTIC_REG' | 'AUTOML_CLASSIFIER';
  excluded_columns: string | null;
  model_name: string | null;
  target_size: number | null;
  /** The labelled set as a membership query, recorded by the class-size step (the question its figures are shown as). */
  labelled_query?: MembershipQuery | null;
  /** The labelled set as measured by member set when the seed step ran (decision 052): its size is shown by it. */
  labelled_set?: MeasuredSet | null;
  /**
   * The labelled question as the privacy layer answered it (without conditions, branches or segments of
   * low effect): the model learns from these persons, so no figure of the run depends on one person that
   * a low-effect condition adds or removes.
   */
  answered_query?: MembershipQuery | null;
}

export interface StepState {
  name: StepName;
  status: 'pending' | 'running' | 'completed' | 'failed';
  started_at: string | null;
  completed_at: string | null;
  metrics: Record<string, unknown> | null;
}

export interface GateState {
  gate_id: GateId;
  step: StepName;
  status: 'open' | 'approved' | 'rejected' | 'edited';
  question: string;
  shows: Record<string, unknown>;
  response: unknown;
  opened_at: string;
  resolved_at: string | null;
}

export type RunRow = Omit<Selectable<WorkflowRunsTable>, 'input' | 'steps' | 'gates' | 'metrics' | 'model'> & {
  kind: WorkflowKind;
  status: RunStatus;
  input: RunInput;
  steps: StepState[];
  gates: GateState[];
  metrics: ModelRunMetrics | null;
  model: StoredModel | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
};

export interface RunPatch {
  status?: RunStatus;
  input?: RunInput;
  steps?: StepState[];
  gates?: GateState[];
  metrics?: ModelRunMetrics | null;
  model?: StoredModel | null;
  members_path?: string | null;
  record_count?: number | null;
  attempts?: number;
  error_code?: string | null;
  error_message?: string | null;
  completed_at?: Date | null;
  updated_at: Date;
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
/** PGlite and node-postgres both parse jsonb; a string is parsed defensively. */
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

function toRow(r: Selectable<WorkflowRunsTable>): RunRow {
  return {
    ...r,
    input: parse(r.input),
    steps: parse(r.steps),
    gates: parse(r.gates),
    metrics: parse(r.metrics) ?? null,
    model: parse(r.model) ?? null,
  } as RunRow;
}

export const runStore = {
  async insert(
    db: Kysely<DB>,
    r: {
      id: string;
      orgId: string;
      segmentId: string;
      kind: WorkflowKind;
      hitl: boolean;
      version: number;
      input: RunInput;
      steps: StepState[];
      now: Date;
    },
  ) {
    await db
      .insertInto('workflow_runs')
      .values({
        id: r.id,
        org_id: r.orgId,
        segment_id: r.segmentId,
        kind: r.kind,
        status: 'queued',
        hitl: r.hitl,
        segment_version: r.version,
        input: JSON.stringify(r.input),
        steps: JSON.stringify(r.steps),
        gates: JSON.stringify([]),
        metrics: null,
        model: null,
        members_path: null,
        record_count: null,
        attempts: 0,
        error_code: null,
        error_message: null,
        created_at: r.now,
        updated_at: r.now,
        completed_at: null,
      })
      .execute();
  },

  async find(db: Kysely<DB>, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<RunRow | undefined> {
    let q = db.selectFrom('workflow_runs').selectAll().where('org_id', '=', orgId).where('id', '=', id);
    if (opts.forUpdate) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? toRow(row) : undefined;
  },

  async update(db: Kysely<DB>, orgId: string, id: string, p: RunPatch): Promise<void> {
    const set: Record<string, unknown> = { ...p };
    for (const k of ['input', 'steps', 'gates', 'metrics', 'model'] as const) if (k in p) set[k] = json(p[k]);
    await db.updateTable('workflow_runs').set(set).where('org_id', '=', orgId).where('id', '=', id).execute();
  },
};
