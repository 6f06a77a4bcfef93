import type { Kysely } from 'kysely';

/**
 * Deliveries (src/modules/deliveries, docs/decisions/032-deliveries.md): the organization's configured
 * destinations (credentials sealed), delivery quotes, and deliveries. JSON values are text columns
 * written and read by the store (the same on PGlite and PostgreSQL).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('delivery_destinations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('secrets_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('delivery_destinations_org_idx').on('delivery_destinations').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('delivery_quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull())
    .addColumn('audience_version', 'integer', (c) => c.notNull())
    .addColumn('selection_key', 'text', (c) => c.notNull())
    .addColumn('total_cost_cents', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull())
    .addColumn('audience_version', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('destination_id', 'text')
    .addColumn('template_id', 'text')
    .addColumn('field_list', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('include_unmatched', 'boolean', (c) => c.notNull())
    .addColumn('output_format', 'text', (c) => c.notNull())
    .addColumn('output_compression', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // Identity of the delivered content; cleared when the delivery fails, so only a live or finished
    // delivery makes an identical request a free re-delivery. Unique: two racing requests settle as one.
    .addColumn('content_key', 'text')
    .addColumn('estimated_cost_cents', 'integer', (c) => c.notNull())
    .addColumn('cost_cents', 'integer', (c) => c.notNull())
    .addColumn('reservations', 'text', (c) => c.notNull())
    .addColumn('quote_id', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('matched_segment_id', 'text')
    .addColumn('source_job_id', 'text')
    .addColumn('release_major', 'integer', (c) => c.notNull())
    .addColumn('release_minor', 'integer', (c) => c.notNull())
    .addColumn('output_bytes', 'bigint')
    .addColumn('output_record_count', 'integer')
    .addColumn('billed_count', 'integer')
    .addColumn('parts', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('error_code', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deliveries_audience_idx').on('deliveries').columns(['org_id', 'audience_id', 'created_at']).execute();
  await db.schema.createIndex('deliveries_content_key_uq').on('deliveries').columns(['org_id', 'content_key']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deliveries').ifExists().execute();
  await db.schema.dropTable('delivery_quotes').ifExists().execute();
  await db.schema.dropTable('delivery_destinations').ifExists().execute();
}
