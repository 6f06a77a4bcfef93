import type { Kysely } from 'kysely';

/**
 * Agent tasks follow their long work from the control plane (docs/decisions/035): `following` marks a
 * task whose operation answered and started work elsewhere (a delivery, a file match, a model segment);
 * `progress` is that resource as last read; `lease_until` is how long the process running the operation
 * itself vouches for it (renewed while it runs), so a task whose process stopped mid-call is failed with
 * a clear reason on the next read instead of staying `working` forever.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_tasks')
    .addColumn('following', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('agent_tasks').addColumn('progress', 'jsonb').execute();
  await db.schema.alterTable('agent_tasks').addColumn('lease_until', 'timestamptz').execute();
  await db.schema.createIndex('agent_tasks_org_page_idx').on('agent_tasks').columns(['org_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('agent_tasks_org_page_idx').execute();
  await db.schema.alterTable('agent_tasks').dropColumn('lease_until').execute();
  await db.schema.alterTable('agent_tasks').dropColumn('progress').execute();
  await db.schema.alterTable('agent_tasks').dropColumn('following').execute();
}
