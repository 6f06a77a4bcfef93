import type { Kysely } from 'kysely';

/**
 * Workflow runs of similarity and propensity segments (spec 4.11 GET /v1/workflows/{id}): one row per
 * build or relaunch, holding its input, the state of each step with its metrics, the review gates
 * (hitl), the model, the member set written and the outcome. The job reads the row to know where to
 * continue, so a worker killed mid-run resumes from the last completed step.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workflow_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('segment_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    // queued | running | awaiting_review | completed | failed | cancelled
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('hitl', 'boolean', (c) => c.notNull())
    .addColumn('segment_version', 'integer', (c) => c.notNull())
    .addColumn('input', 'jsonb', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull())
    .addColumn('gates', 'jsonb', (c) => c.notNull())
    .addColumn('metrics', 'jsonb')
    .addColumn('model', 'jsonb')
    .addColumn('members_path', 'text')
    .addColumn('record_count', 'integer')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('workflow_runs_segment').on('workflow_runs').columns(['org_id', 'segment_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('workflow_runs').ifExists().execute();
}
