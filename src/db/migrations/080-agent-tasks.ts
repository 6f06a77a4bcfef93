import type { Kysely } from 'kysely';

/**
 * Tasks of the agent (A2A) endpoint, owned by the agent-tasks area: one row per message an agent sent,
 * with the skill and tool it ran, its state, and its outcome (the operation's answer, or the section 7
 * envelope). They survive a restart; reads and cancellation are restricted to the owning organization.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('skill', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('message', 'jsonb', (c) => c.notNull())
    .addColumn('result', 'jsonb')
    .addColumn('error', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agent_tasks_org_idx').on('agent_tasks').columns(['org_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_tasks').execute();
}
