/** Rows of agent_tasks. No rules here: the service decides states. JSON columns are written as JSON text (PostgreSQL and PGlite alike). */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CursorKey } from '../../core/page.ts';
import { afterKey } from '../../db/keyset.ts';
import type { AgentTasksTable, DB } from '../../db/schema.ts';

export type AgentTaskRow = Selectable<AgentTasksTable>;

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export interface TaskFilter {
  contextId?: string;
  state?: string;
  updatedSince?: Date;
}

export function createAgentTaskStore(db: Kysely<DB>) {
  const filtered = (orgId: string, filter: TaskFilter) => {
    let q = db.selectFrom('agent_tasks').where('org_id', '=', orgId);
    if (filter.contextId) q = q.where('context_id', '=', filter.contextId);
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.updatedSince) q = q.where('updated_at', '>=', filter.updatedSince);
    return q;
  };
  return {
    async insert(row: Omit<AgentTaskRow, 'result' | 'error' | 'progress' | 'following'> & { result?: unknown; error?: unknown }): Promise<void> {
      await db.insertInto('agent_tasks').values({ ...row, message: json(row.message), result: json(row.result), error: json(row.error) }).execute();
    },
    async find(orgId: string, id: string): Promise<AgentTaskRow | undefined> {
      return db.selectFrom('agent_tasks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },
    /** Newest first, `fetch` rows after `after` (keyset on created_at, id). */
    async page(orgId: string, filter: TaskFilter, after: CursorKey | null, fetch: number): Promise<AgentTaskRow[]> {
      let q = filtered(orgId, filter).selectAll();
      if (after) q = q.where((eb) => afterKey(eb, after, { at: 'created_at', id: 'id' }));
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetch).execute();
    },
    async count(orgId: string, filter: TaskFilter): Promise<number> {
      const row = await filtered(orgId, filter).select(sql<string>`count(*)`.as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Moves a task out of one of `from` states; false when it was no longer in them. */
    async transition(orgId: string, id: string, from: readonly string[], to: { state: string; result?: unknown; error?: unknown; progress?: unknown; following?: boolean; at: Date }): Promise<boolean> {
      const res = await db.updateTable('agent_tasks')
        .set({
          state: to.state, error: json(to.error), updated_at: to.at, lease_until: null,
          ...(to.result !== undefined ? { result: json(to.result) } : {}),
          ...(to.progress !== undefined ? { progress: json(to.progress) } : {}),
          ...(to.following !== undefined ? { following: to.following } : {}),
        })
        .where('org_id', '=', orgId).where('id', '=', id).where('state', 'in', [...from])
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    /** The followed resource as read now, while the task is still working. */
    async setProgress(orgId: string, id: string, progress: unknown, at: Date): Promise<void> {
      await db.updateTable('agent_tasks').set({ progress: json(progress), updated_at: at })
        .where('org_id', '=', orgId).where('id', '=', id).where('state', '=', 'working').execute();
    },
    async renewLease(orgId: string, id: string, until: Date): Promise<void> {
      await db.updateTable('agent_tasks').set({ lease_until: until })
        .where('org_id', '=', orgId).where('id', '=', id).where('state', '=', 'working').where('following', '=', false).execute();
    },
  };
}

export type AgentTaskStore = ReturnType<typeof createAgentTaskStore>;
