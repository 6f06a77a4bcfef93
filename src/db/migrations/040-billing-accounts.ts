import { sql, type Kysely } from 'kysely';

/**
 * Billing accounts, credits and commits, licenses, contract changes, payment attempts and portal links
 * (src/modules/billing, docs/decisions/030-billing-ledger-and-credits.md). The usage ledger gains an
 * idempotency key (one charge per billable event), the cents drawn from credits, and its details.
 * JSON values are stored as text (the same on PGlite and PostgreSQL).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_ledger').addColumn('idempotency_key', 'text').execute();
  await db.schema
    .alterTable('usage_ledger')
    .addColumn('covered_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('usage_ledger').addColumn('details', 'text').execute();
  await db.schema.createIndex('usage_ledger_idem_uq').unique().on('usage_ledger').columns(['org_id', 'idempotency_key']).execute();

  await db.schema
    .createTable('billing_accounts')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('organizations.id'))
    .addColumn('billing_account_id', 'text', (c) => c.notNull().unique())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('parent_org_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('cadence', 'text', (c) => c.notNull())
    .addColumn('period_start_at', 'timestamptz', (c) => c.notNull())
    .addColumn('boundary_at', 'timestamptz', (c) => c.notNull())
    .addColumn('billing_address', 'text')
    .addColumn('payment_method_id', 'text')
    .addColumn('payment_method_label', 'text')
    .addColumn('auto_recharge', 'text')
    .addColumn('recharge_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('credit_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('applicable_product_ids', 'text', (c) => c.notNull())
    .addColumn('applicable_product_tags', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('remaining_cents', 'integer', (c) => c.notNull())
    .addColumn('starting_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ending_before', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_grants_org_idx').on('credit_grants').columns(['org_id', 'ending_before']).execute();

  // Every movement of a grant's balance: one row per (ledger entry, grant) it drew from.
  await db.schema
    .createTable('credit_draws')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('ledger_id', 'text', (c) => c.notNull().references('usage_ledger.id'))
    .addColumn('grant_id', 'text', (c) => c.notNull().references('credit_grants.id'))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_draws_org_idx').on('credit_draws').columns(['org_id', 'grant_id']).execute();

  // One row per (organization, person): the license period of an identity delivered to the organization.
  await db.schema
    .createTable('identity_licenses')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('person_key', 'bigint', (c) => c.notNull())
    .addColumn('licensed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ledger_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('identity_licenses_pk', ['org_id', 'person_key'])
    .execute();

  await db.schema
    .createTable('contract_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('request_fingerprint', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('cadence', 'text', (c) => c.notNull())
    .addColumn('effective_at', 'timestamptz', (c) => c.notNull())
    .addColumn('previous_contract_end_at', 'timestamptz')
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('applied_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('contract_changes_request_uq', ['org_id', 'request_id'])
    .execute();

  await db.schema
    .createTable('payment_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('crossing_key', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_intent_id', 'text')
    .addColumn('provider_invoice_id', 'text')
    .addColumn('action_url', 'text')
    .addColumn('error_code', 'text')
    .addColumn('grant_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('payment_attempts_crossing_uq', ['org_id', 'crossing_key'])
    .execute();

  await db.schema
    .createTable('portal_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`select 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'portal_links',
    'payment_attempts',
    'contract_changes',
    'identity_licenses',
    'credit_draws',
    'credit_grants',
    'billing_accounts',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.dropIndex('usage_ledger_idem_uq').ifExists().execute();
  for (const c of ['idempotency_key', 'covered_cents', 'details']) await db.schema.alterTable('usage_ledger').dropColumn(c).execute();
}
