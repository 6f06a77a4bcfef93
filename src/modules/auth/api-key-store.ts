import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, DB } from '../../db/schema.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function createApiKeyStore(db: Kysely<DB>) {
  return {
    async insert(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
    },
    async findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst() as Promise<ApiKeyRow | undefined>;
    },
    async list(orgId: string): Promise<ApiKeyRow[]> {
      return db
        .selectFrom('api_keys')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute() as Promise<ApiKeyRow[]>;
    },
    async find(orgId: string, id: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst() as Promise<
        ApiKeyRow | undefined
      >;
    },
    async deactivate(orgId: string, id: string, at: Date): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({ deactivated_at: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('deactivated_at', 'is', null)
        .execute();
    },
    async touch(id: string, at: Date): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
