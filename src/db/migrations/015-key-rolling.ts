import type { Kysely } from 'kysely';

/**
 * Signing keys roll (ADR 026): a rolled-out key stays in server_secrets under `<name>@<time>` and still
 * verifies until `retires_at`; current keys have none. (Values are wrapped under the master key by the
 * service on its first start after this migration: a migration never sees the master key.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('server_secrets').addColumn('retires_at', 'timestamptz').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('server_secrets').dropColumn('retires_at').execute();
}
