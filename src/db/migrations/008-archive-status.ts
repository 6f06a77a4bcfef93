import type { Kysely } from 'kysely';

/**
 * Unarchive restores the status a segment or audience had before it was archived (a failed or
 * pending matched segment stays failed or pending), so archiving remembers it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('segments').addColumn('archived_from_status', 'text').execute();
  await db.schema.alterTable('audiences').addColumn('archived_from_status', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('segments').dropColumn('archived_from_status').execute();
  await db.schema.alterTable('audiences').dropColumn('archived_from_status').execute();
}
