import type { Kysely } from 'kysely';

/**
 * Quotes of one audience version, newest first: a quote of an audience too large to look its licenses
 * up live reuses the license evaluation of a recent quote of the same version (`cached`, decision 032).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('delivery_quotes_audience_idx')
    .on('delivery_quotes')
    .columns(['org_id', 'audience_id', 'audience_version', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('delivery_quotes_audience_idx').execute();
}
