import type { Kysely } from 'kysely';

/**
 * A delivery made by an integration run whose partner billing source bills the customer (decision 038): nothing is
 * reserved for it and nothing is charged when it completes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('deliveries')
    .addColumn('unbilled', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deliveries').dropColumn('unbilled').execute();
}
