/**
 * Rows of agent_tasks. No rules here: the service decides states. JSON columns are written as JSON text
 * (PostgreSQL and PGlite alike). Every read and write names the owner (organization and user), so a row
 * is reached only through the user who started the task.
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { CursorKey } from '../../core/page.ts';
import { afterKey } from '../../db/keyset.ts';
import type { AgentTasksTable, DB } from '../../db/schema.ts';

export type AgentTaskRow = Selectable<AgentTasksTable>;

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** Who a task belongs to: the user who started it, in their organization. */
export interface TaskOwner {
  orgId: string;
  userId: string;
}

export interface TaskFilter {
  contextId?: string;
  state?: string;
  updatedSince?: Date;
}

/** The one task `id` of `owner`: another user's task, like a missing one, matches no row. */
const owned = (owner: TaskOwner, id: string) => (eb: ExpressionBuilder<DB, 'agent_tasks'>) =>
  eb.and([eb('org_id', '=', owner.orgId), eb('user_id', '=', owner.userId), eb('id', '=', id)]);

export function createAgentTaskStore(db: Kysely<DB>) {
  const filtered = (owner: TaskOwner, filter: TaskFilter) => {
    let q = db.selectFrom('agent_tasks').where('org_id', '=', owner.orgId).where('user_id', '=', owner.userId);
    if (filter.contextId) q = q.where('context_id', '=', filter.contextId);
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.updatedSince) q = q.where('updated_at', '>=', filter.updatedSince);
    return q;
  };
  return {
    async insert(
      row: Omit<AgentTaskRow, 'result' | 'error' | 'progress' | 'following'> & { result?: unknown; error?: unknown },
    ): Promise<void> {
      await db
        .insertInto('agent_tasks')
        .values({ ...row, message: json(row.message), result: json(row.result), error: json(row.error) })
        .execute();
    },
    async find(owner: TaskOwner, id: string): Promise<AgentTaskRow | undefined> {
      return db.selectFrom('agent_tasks').selectAll().where(owned(owner, id)).executeTakeFirst();
    },
    /** Newest first, `fetch` rows after `after` (keyset on created_at, id). */
    async page(owner: TaskOwner, filter: TaskFilter, after: CursorKey | null, fetch: number): Promise<AgentTaskRow[]> {
      let q = filtered(owner, filter).selectAll();
      if (after) q = q.where((eb) => afterKey(eb, after, { at: 'created_at', id: 'id' }));
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetch).execute();
    },
    async count(owner: TaskOwner, filter: TaskFilter): Promise<number> {
      const row = await filtered(owner, filter)
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Moves a task out of one of `from` states; false when it was no longer in them. */
    async transition(
      owner: TaskOwner,
      id: string,
      from: readonly string[],
      to: { state: string; result?: unknown; error?: unknown; progress?: unknown; following?: boolean; at: Date },
    ): Promise<boolean> {
      const res = await db
        .updateTable('agent_tasks')
        .set({
          state: to.state,
          error: json(to.error),
          updated_at: to.at,
          lease_until: null,
          ...(to.result !== undefined ? { result: json(to.result) } : {}),
          ...(to.progress !== undefined ? { progress: json(to.progress) } : {}),
          ...(to.following !== undefined ? { following: to.following } : {}),
        })
        .where(owned(owner, id))
        .where('state', 'in', [...from])
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    /** The followed resource as read now, while the task is still working. */
    async setProgress(owner: TaskOwner, id: string, progress: unknown, at: Date): Promise<void> {
      await db
        .updateTable('agent_tasks')
        .set({ progress: json(progress), updated_at: at })
        .where(owned(owner, id))
        .where('state', '=', 'working')
        .execute();
    },
    async renewLease(owner: TaskOwner, id: string, until: Date): Promise<void> {
      await db
        .updateTable('agent_tasks')
        .set({ lease_until: until })
        .where(owned(owner, id))
        .where('state', '=', 'working')
        .where('following', '=', false)
        .execute();
    },
  };
}

export type AgentTaskStore = ReturnType<typeof createAgentTaskStore>;
