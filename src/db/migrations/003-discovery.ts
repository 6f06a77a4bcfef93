import type { Kysely } from 'kysely';

/**
 * Discovery compute budget: bytes of warehouse scan charged per organization per clock hour. One row
 * per (organization, hour) so the charge is a single upsert and the hourly reset needs no sweeper
 * (a new hour is a new row; old rows are only history).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('compute_usage')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('queries', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('compute_usage_pk', ['org_id', 'window_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('compute_usage').execute();
}
