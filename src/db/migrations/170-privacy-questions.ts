import type { Kysely } from 'kysely';

/**
 * The organization's record of questions (docs/decisions/052-privacy-by-member-set.md, defence in
 * depth): one row per discovery question, keyed by the member set it was answered for and by a hash
 * of its wording, so long runs of differently worded questions over one set (the signature of an
 * averaging attack) can be flagged and slowed. Operators read it as an audit trail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('privacy_questions')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('asked_at', 'timestamptz', (c) => c.notNull())
    .addColumn('set_hash', 'text', (c) => c.notNull())
    .addColumn('wording', 'text', (c) => c.notNull())
    .addColumn('low_effect', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flagged', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.createIndex('privacy_questions_set_idx').on('privacy_questions').columns(['org_id', 'set_hash', 'asked_at']).execute();
  await db.schema.createIndex('privacy_questions_flagged_idx').on('privacy_questions').columns(['org_id', 'flagged', 'asked_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('privacy_questions').execute();
}
