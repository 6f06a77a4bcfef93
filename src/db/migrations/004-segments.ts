import { sql, type Kysely } from 'kysely';

/**
 * Segments, audiences (compositions of segments) and campaigns (issue #4).
 *
 * Rows are soft-deleted (`deleted_at`): a deleted segment vanishes from every read, but audiences keep
 * its id in their refs, because spec 2 says the id lists may be longer than the summaries.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('campaigns_org_idx').on('campaigns').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('segments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subtype', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('ephemeral', 'boolean', (c) => c.notNull().defaultTo(false))
    // Counts are graph-derived: below the privacy floor the count is kept null and the reason says why.
    .addColumn('record_count', 'integer')
    .addColumn('record_count_reason', 'text')
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('version_created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('record_limit', 'integer')
    .addColumn('filter_groups', 'jsonb')
    // Subtype-specific fields of matched / similarity / propensity segments (file_format, seed, ...).
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('input_record_count', 'integer')
    .addColumn('match_count', 'integer')
    // Materialized member set (Parquet of person keys) for non-filter subtypes.
    .addColumn('members_path', 'text')
    // A matched duplicate reads its source's member set and cannot refresh on its own.
    .addColumn('shared_source_segment_id', 'text')
    .addColumn('error_message', 'text')
    .addColumn('workflow_run_id', 'text')
    .addColumn('origin_campaign_id', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('release_major', 'integer', (c) => c.notNull())
    .addColumn('release_minor', 'integer', (c) => c.notNull())
    .addColumn('parent_segment_id', 'text')
    .addColumn('root_segment_id', 'text')
    .addColumn('parent_version', 'integer')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('segments_org_idx').on('segments').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('segments_expiry_idx')
    .on('segments')
    .columns(['expires_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('audiences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('set_logic', 'text', (c) => c.notNull())
    .addColumn('record_count', 'integer')
    .addColumn('record_count_reason', 'text')
    // The snapshot a count belongs to: a late count of an older snapshot is dropped.
    .addColumn('counted_version', 'integer')
    .addColumn('matched_record_count', 'integer')
    .addColumn('match_count', 'integer')
    .addColumn('input_record_count', 'integer')
    .addColumn('snapshot_version', 'integer', (c) => c.notNull())
    .addColumn('version_created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('release_major', 'integer', (c) => c.notNull())
    .addColumn('release_minor', 'integer', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.references('campaigns.id'))
    .addColumn('linked_at', 'timestamptz')
    .addColumn('parent_audience_id', 'text')
    .addColumn('parent_snapshot_version', 'integer')
    .addColumn('last_quote_id', 'text')
    .addColumn('last_quote_cost_cents', 'integer')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('audiences_org_idx').on('audiences').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audiences_campaign_idx').on('audiences').columns(['org_id', 'campaign_id', 'linked_at', 'id']).execute();
  await db.schema
    .createIndex('audiences_expiry_idx')
    .on('audiences')
    .columns(['expires_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('audience_segments')
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id'))
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('audience_segments_pk', ['audience_id', 'segment_id'])
    .execute();
  await db.schema.createIndex('audience_segments_segment_idx').on('audience_segments').columns(['segment_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['audience_segments', 'audiences', 'segments', 'campaigns']) await db.schema.dropTable(t).ifExists().execute();
}
