import { sql, type Kysely } from 'kysely';

/**
 * Outbound integrations (issue 20, docs/decisions/038-integration-runs.md): connections to provider
 * accounts (tokens sealed at rest), pending OAuth authorizations, and integration runs with their counts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integration_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_account_id', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    // connected | disconnected
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('access_token', 'text')
    .addColumn('refresh_token', 'text')
    .addColumn('token_expires_at', 'timestamptz')
    // JSON array of provider properties this service created (cleaned up by app_data_policy remove)
    .addColumn('app_properties', 'text', (c) => c.notNull())
    .addColumn('app_data_policy', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('disconnected_at', 'timestamptz')
    .execute();
  // One live connection per provider per organization, and a provider account in one organization at a time.
  await sql`CREATE UNIQUE INDEX integration_connections_org_provider ON integration_connections (org_id, provider) WHERE status = 'connected'`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX integration_connections_account ON integration_connections (provider, provider_account_id) WHERE status = 'connected'`.execute(
    db,
  );

  await db.schema
    .createTable('integration_authorizations')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('integration_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('data_flow', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('billing_source', 'text', (c) => c.notNull())
    .addColumn('customer_boundary', 'text', (c) => c.notNull())
    // JSON: {input, matched, delivered, applied, unchanged, skipped, failed}
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('selected_fields', 'text', (c) => c.notNull())
    .addColumn('cancel_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('boundary_at', 'timestamptz')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('integration_runs_org').on('integration_runs').columns(['org_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_runs').ifExists().execute();
  await db.schema.dropTable('integration_authorizations').ifExists().execute();
  await db.schema.dropTable('integration_connections').ifExists().execute();
}
