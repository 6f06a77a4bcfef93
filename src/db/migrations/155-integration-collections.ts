import { sql, type Kysely } from 'kysely';

/**
 * Integration match collections and partner execution runs (issue 20, docs/decisions/050-integration-collections.md):
 * the partner client and the match of an execution-key run, the organization's collections, the identities
 * captured into them (expiring after the retention), and the integration run a delivery came from.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_runs').addColumn('oauth_client_id', 'text').execute();
  await db.schema.alterTable('integration_runs').addColumn('match_segment_id', 'text').execute();
  // sha256 of the create request body of an execution-key run (a replay with another body is a conflict)
  await db.schema.alterTable('integration_runs').addColumn('execution_body_hash', 'text').execute();
  // JSON of the first answer of an execution-key run (replayed with fresh upload URLs)
  await db.schema.alterTable('integration_runs').addColumn('execution_response', 'text').execute();
  await db.schema.alterTable('integration_runs').addColumn('captured_at', 'timestamptz').execute();
  await sql`CREATE INDEX integration_runs_open_partner ON integration_runs (status) WHERE oauth_client_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX integration_runs_match ON integration_runs (org_id, match_segment_id) WHERE match_segment_id IS NOT NULL`.execute(
    db,
  );
  await db.schema.alterTable('deliveries').addColumn('integration_run_id', 'text').execute();

  await db.schema
    .createTable('integration_collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    // active | paused
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('retention_days', 'integer', (c) => c.notNull())
    // true distinct identities at the last refresh (shown through the privacy layer)
    .addColumn('identity_count', 'integer')
    .addColumn('count_refreshed_at', 'timestamptz')
    .addColumn('last_captured_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX integration_collections_org_kind ON integration_collections (org_id, kind)`.execute(db);

  await db.schema
    .createTable('integration_collection_identities')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('person_key', 'bigint', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    // recurring | batch | file
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('boundary_at', 'timestamptz', (c) => c.notNull())
    .addColumn('captured_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_collection_identities_pk', ['collection_id', 'run_id', 'person_key'])
    .execute();
  await db.schema
    .createIndex('integration_collection_identities_expiry')
    .on('integration_collection_identities')
    .columns(['expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_collection_identities').ifExists().execute();
  await db.schema.dropTable('integration_collections').ifExists().execute();
  await db.schema.alterTable('deliveries').dropColumn('integration_run_id').execute();
  await sql`DROP INDEX IF EXISTS integration_runs_open_partner`.execute(db);
  await sql`DROP INDEX IF EXISTS integration_runs_match`.execute(db);
  for (const c of ['captured_at', 'execution_response', 'execution_body_hash', 'match_segment_id', 'oauth_client_id']) {
    await db.schema.alterTable('integration_runs').dropColumn(c).execute();
  }
}
