import type { Kysely } from 'kysely';

/**
 * Integration run output (issue 20, docs/decisions/038-integration-runs.md): the matched contacts an
 * `ingest` run brings into the platform (read back with GET /v1/integration-runs/{id}/records), one row
 * per matched provider contact, numbered in the order they were read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integration_run_records')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('provider_contact_id', 'text', (c) => c.notNull())
    .addColumn('iag_person_id', 'text')
    .addColumn('match_level', 'text')
    // JSON object: selected field -> value (text) for the fields the person has
    .addColumn('field_values', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_run_records_pk', ['run_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_run_records').ifExists().execute();
}
