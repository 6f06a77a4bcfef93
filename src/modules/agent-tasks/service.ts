/**
 * Agent tasks: what an agent asked the A2A endpoint to do and how it ended, persisted in the control
 * plane so they survive a restart (docs/decisions/035 and 047). Nothing about a task lives only in
 * process memory: a task whose operation started long work (a delivery, a file match, a model segment)
 * is `following` and its state is derived from that resource on every read; a task whose operation is
 * still running in a process carries a lease that process renews, and a read after the lease lapsed
 * (the process stopped) fails it with TASK_INTERRUPTED. A task belongs to the user who started it (its
 * artifacts may hold a private segment or a live upload URL): reads, lists and cancellation see only the
 * caller's own tasks, and another user's task, in the same organization or not, is not found exactly
 * like a task that does not exist. Protocol shapes live in src/http/a2a/.
 */
import type { Kysely } from 'kysely';
import { DomainError } from '../../core/errors.ts';
import type { FollowProgress } from '../../core/operation.ts';
import { pageQuery, toPage } from '../../core/page.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { createAgentTaskStore, type AgentTaskRow, type TaskFilter, type TaskOwner } from './store.ts';

export type AgentTaskState = 'submitted' | 'working' | 'completed' | 'failed' | 'canceled';
export const TERMINAL_STATES: readonly AgentTaskState[] = ['completed', 'failed', 'canceled'];
const OPEN: readonly AgentTaskState[] = ['working', 'submitted'];

export interface AgentTask {
  id: string;
  contextId: string;
  orgId: string;
  userId: string;
  skill: string;
  tool: string;
  state: AgentTaskState;
  message: unknown;
  /** The operation's answer. */
  result: unknown;
  /** Following tasks: the resource the operation started, as last read. */
  progress: unknown;
  following: boolean;
  /** Until when the process running the operation vouches for it (null once it answered). */
  leaseUntil: Date | null;
  error: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Reads the resource a following task watches; null when it cannot be read now (the task is left as it is). */
export type Follower = (task: AgentTask) => Promise<{ resource: unknown; progress: FollowProgress } | null>;

/** How long a process vouches for an operation it runs; renewed every third of it while the call runs. */
export const LEASE_MS = 60_000;
const LIST_SCOPE = 'agent-tasks';

const parsed = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : (v ?? null));

function present(row: AgentTaskRow): AgentTask {
  return {
    id: row.id,
    contextId: row.context_id,
    orgId: row.org_id,
    userId: row.user_id,
    skill: row.skill,
    tool: row.tool,
    state: row.state as AgentTaskState,
    message: parsed(row.message),
    result: parsed(row.result),
    progress: parsed(row.progress),
    following: row.following,
    leaseUntil: row.lease_until ? new Date(row.lease_until) : null,
    error: parsed(row.error),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const notFound = (id: string) =>
  new DomainError('NOT_FOUND', `No task ${id} of yours.`, {
    nextStep: 'Use the task id a SendMessage (message/send) of yours answered; tasks are visible only to the user who started them.',
  });

/** The section 7 envelope a task keeps when it failed without an operation error of its own. */
const failure = (error: DomainError, requestId: string) => ({
  error: error.code,
  code: error.code,
  message: error.message,
  request_id: requestId,
  ...(error.nextStep ? { next_step: error.nextStep } : {}),
});

const interrupted = (task: AgentTask) =>
  new DomainError(
    'TASK_INTERRUPTED',
    `The service stopped while it was running ${task.tool} for task ${task.id}; the operation's outcome is unknown.`,
    {
      nextStep: 'Check with a read tool whether it took effect (e.g. list_segments), then send the message again if not.',
    },
  );

const workFailed = (task: AgentTask, reason: string) =>
  new DomainError('TASK_WORK_FAILED', `${task.tool} started work that failed: ${reason}`, {
    nextStep: 'The task artifacts hold the resource as it ended; fix the cause and send the message again.',
  });

export function createAgentTaskService(deps: { db: Kysely<DB>; clock: Clock }) {
  const store = createAgentTaskStore(deps.db);
  const { clock } = deps;

  /** Brings a task that is still open up to date: the followed resource, or a lapsed lease. */
  async function refresh(task: AgentTask, follow: Follower | undefined, requestId: string): Promise<AgentTask> {
    if (TERMINAL_STATES.includes(task.state)) return task;
    const now = clock.now();
    if (!task.following) {
      if (task.leaseUntil && task.leaseUntil.getTime() >= now.getTime()) return task;
      await store.transition(task, task.id, OPEN, { state: 'failed', error: failure(interrupted(task), requestId), at: now });
      return present((await store.find(task, task.id))!);
    }
    const seen = follow ? await follow(task) : null;
    if (!seen) return task;
    const { progress, resource } = seen;
    if (progress.state === 'working') {
      if (JSON.stringify(resource) !== JSON.stringify(task.progress)) await store.setProgress(task, task.id, resource, now);
    } else if (progress.state === 'completed') {
      await store.transition(task, task.id, OPEN, { state: 'completed', progress: resource, at: now });
    } else if (progress.state === 'failed') {
      await store.transition(task, task.id, OPEN, {
        state: 'failed',
        progress: resource,
        error: failure(workFailed(task, progress.reason), requestId),
        at: now,
      });
    }
    return present((await store.find(task, task.id))!);
  }

  const tasks = {
    async open(input: {
      orgId: string;
      userId: string;
      contextId?: string;
      skill: string;
      tool: string;
      message: unknown;
    }): Promise<AgentTask> {
      const now = clock.now();
      const row = {
        id: newId('task'),
        org_id: input.orgId,
        user_id: input.userId,
        context_id: input.contextId ?? newId('ctx'),
        skill: input.skill,
        tool: input.tool,
        state: 'working',
        message: input.message,
        created_at: now,
        updated_at: now,
        lease_until: new Date(now.getTime() + LEASE_MS),
      };
      await store.insert(row);
      return present({ ...row, result: null, error: null, progress: null, following: false });
    },
    /** Renews the lease of a task whose operation this process runs, until the returned function is called. */
    hold(task: AgentTask): () => void {
      const timer = setInterval(() => {
        store.renewLease(task, task.id, new Date(clock.now().getTime() + LEASE_MS)).catch(() => undefined);
      }, LEASE_MS / 3);
      timer.unref();
      return () => clearInterval(timer);
    },
    /**
     * Records what the operation answered: failed with its envelope, or completed, or (when `progress`
     * says its work goes on) still working and following that resource. A task canceled meanwhile stays canceled.
     */
    async finish(
      owner: TaskOwner,
      id: string,
      outcome: { result: unknown; progress?: FollowProgress } | { error: Record<string, unknown> },
      requestId: string,
    ): Promise<AgentTask> {
      const at = clock.now();
      if ('error' in outcome) {
        await store.transition(owner, id, OPEN, { state: 'failed', error: outcome.error, at });
      } else if (outcome.progress?.state === 'working') {
        await store.transition(owner, id, OPEN, { state: 'working', result: outcome.result, following: true, at });
      } else if (outcome.progress?.state === 'failed') {
        const task = present((await store.find(owner, id))!);
        await store.transition(owner, id, OPEN, {
          state: 'failed',
          result: outcome.result,
          error: failure(workFailed(task, outcome.progress.reason), requestId),
          at,
        });
      } else {
        await store.transition(owner, id, OPEN, { state: 'completed', result: outcome.result, at });
      }
      return present((await store.find(owner, id))!);
    },
    /** The owner's task, brought up to date (see `refresh`); anyone else's is NOT_FOUND. */
    async get(owner: TaskOwner, id: string, options: { follow?: Follower; requestId: string }): Promise<AgentTask> {
      const row = await store.find(owner, id);
      if (!row) throw notFound(id);
      return refresh(present(row), options.follow, options.requestId);
    },
    /** One page of the owner's tasks, newest first; `pageToken` is the `nextPageToken` of the previous page (same filter). */
    async list(
      owner: TaskOwner,
      request: { pageSize: number; pageToken?: string; filter: TaskFilter },
      options: { follow?: Follower; requestId: string },
    ) {
      const scope = `${LIST_SCOPE}|${request.filter.contextId ?? ''}|${request.filter.state ?? ''}|${request.filter.updatedSince?.toISOString() ?? ''}`;
      const q = pageQuery(scope, { limit: request.pageSize, cursor: request.pageToken || undefined });
      const rows = await store.page(owner, request.filter, q.after, q.fetch);
      const page = toPage(scope, rows, q.limit, (r) => ({ at: new Date(r.created_at), id: r.id }), present);
      const items = await Promise.all(page.items.map((t) => refresh(t, options.follow, options.requestId)));
      return { tasks: items, nextPageToken: page.next_cursor ?? '', totalSize: await store.count(owner, request.filter) };
    },
    /** Cancels an owner's task that has not ended; `canceled` is false when it had already ended (it is left as it was). */
    async cancel(
      owner: TaskOwner,
      id: string,
      options: { follow?: Follower; requestId: string },
    ): Promise<{ task: AgentTask; canceled: boolean }> {
      const current = await tasks.get(owner, id, options);
      const canceled =
        !TERMINAL_STATES.includes(current.state) && (await store.transition(owner, id, OPEN, { state: 'canceled', at: clock.now() }));
      return { task: present((await store.find(owner, id))!), canceled };
    },
  };
  return tasks;
}

export type AgentTaskService = ReturnType<typeof createAgentTaskService>;
export type { TaskFilter, TaskOwner };
