import type { Kysely } from 'kysely';

/**
 * File matching (spec 4.5): one row per matched segment holding the upload and resolution state the
 * segment document does not show (upload version, shard receipts, progress, the results object).
 * `upload_version` bumps on every refresh, so a URL or a job of an older upload can never touch the new one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_matches')
    .addColumn('segment_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('audience_id', 'text')
    .addColumn('upload_version', 'integer', (c) => c.notNull())
    .addColumn('file_format', 'text', (c) => c.notNull())
    .addColumn('compression', 'text', (c) => c.notNull())
    .addColumn('shard_count', 'integer', (c) => c.notNull())
    .addColumn('hitl', 'boolean', (c) => c.notNull())
    .addColumn('match_levels', 'jsonb', (c) => c.notNull())
    .addColumn('spatial_mode', 'text', (c) => c.notNull())
    // awaiting_upload | awaiting_mappings (hitl) | queued | matching | completed | failed | cancelled
    .addColumn('matching_status', 'text', (c) => c.notNull())
    .addColumn('rows_read', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_matched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('analysis', 'jsonb')
    .addColumn('mapping_warnings', 'jsonb')
    .addColumn('results_path', 'text')
    .addColumn('run_id', 'text')
    .addColumn('error_code', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('file_match_shards')
    .addColumn('segment_id', 'text', (c) => c.notNull())
    .addColumn('upload_version', 'integer', (c) => c.notNull())
    .addColumn('shard_index', 'integer', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('uploaded_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_match_shards_pk', ['segment_id', 'upload_version', 'shard_index'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['file_match_shards', 'file_matches']) await db.schema.dropTable(t).ifExists().execute();
}
