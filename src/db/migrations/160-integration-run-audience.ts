import type { Kysely } from 'kysely';

/**
 * Activation and export runs (issue 20, docs/decisions/038-integration-runs.md): the audience a run pushes,
 * the delivery it created of that audience (the export path: privacy suppression, licenses, audience-delivery
 * billing), and the provider list an activation created (reused when the job is retried).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_runs').addColumn('audience_id', 'text').execute();
  await db.schema.alterTable('integration_runs').addColumn('delivery_id', 'text').execute();
  await db.schema.alterTable('integration_runs').addColumn('provider_list_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_runs').dropColumn('provider_list_id').execute();
  await db.schema.alterTable('integration_runs').dropColumn('delivery_id').execute();
  await db.schema.alterTable('integration_runs').dropColumn('audience_id').execute();
}
