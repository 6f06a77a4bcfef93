import { sql, type Kysely } from 'kysely';

/**
 * The OAuth authorization server's state (oidc-provider's models: clients, grants, codes, tokens,
 * sessions, interactions) in one table keyed by model and id. Bearer-like ids (tokens, codes, session
 * ids) are stored as SHA-256 hashes, never as the value a client holds. Secrets the server must read
 * back (signing keys, cookie keys, client secrets) live in oauth_secrets, written through one store so
 * they can be envelope-encrypted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    // Set on grants when a person consents: the organization and the client name they saw.
    .addColumn('org_id', 'text')
    .addColumn('client_name', 'text')
    // Device codes: when the client last polled and the interval it must keep (slow_down adds 5 s).
    .addColumn('last_polled_at', 'timestamptz')
    .addColumn('poll_interval', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'key'])
    .execute();
  await db.schema.createIndex('oauth_records_grant_idx').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid_idx').on('oauth_records').columns(['model', 'uid']).execute();
  await db.schema.createIndex('oauth_records_user_code_idx').on('oauth_records').columns(['model', 'user_code']).execute();
  await db.schema.createIndex('oauth_records_org_idx').on('oauth_records').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('oauth_records_account_idx').on('oauth_records').columns(['account_id']).execute();
  await db.schema.createIndex('oauth_records_expiry_idx').on('oauth_records').column('expires_at').execute();

  await db.schema
    .createTable('oauth_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_secrets').execute();
  await db.schema.dropTable('oauth_records').execute();
}
