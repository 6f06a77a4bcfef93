import type { Kysely } from 'kysely';

/**
 * Agent tasks are read, listed and canceled only by the user who started them (issue #31), so their pages
 * are keyed by organization and user. The owner was always recorded in `user_id`; only the index changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('agent_tasks_owner_page_idx').on('agent_tasks').columns(['org_id', 'user_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('agent_tasks_org_page_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('agent_tasks_org_page_idx').on('agent_tasks').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('agent_tasks_owner_page_idx').execute();
}
