import type { Kysely } from 'kysely';

/**
 * A delivery pins the audience snapshot it names: its member segments at their versions (their
 * membership: filter groups, record limit and subset seed, or the member file of that version), the
 * data release, the fields and the file-match run, as JSON. The export job exports that snapshot even
 * when the audience is refreshed meanwhile (decision 032). Null on deliveries made before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deliveries').addColumn('snapshot', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deliveries').dropColumn('snapshot').execute();
}
