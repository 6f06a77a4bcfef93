import type { Kysely } from 'kysely';

/**
 * The usage ledger (src/modules/billing): one row per billable operation, reserved with a ceiling
 * before the work runs and settled (or released) after. Amounts are integer cents.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price_cents', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // sha256 of the canonical request body: ties a charge to the request that caused it (audits, replays).
    .addColumn('request_fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('usage_ledger_org_idx').on('usage_ledger').columns(['org_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_ledger').ifExists().execute();
}
