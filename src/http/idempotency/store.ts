import type { Kysely, Selectable } from 'kysely';
import type { DB, IdempotencyRecordsTable } from '../../db/schema.ts';

export type IdempotencyRecord = Selectable<IdempotencyRecordsTable>;

type RecordKey = Pick<IdempotencyRecord, 'org_id' | 'endpoint' | 'key'>;

export function createIdempotencyStore(db: Kysely<DB>) {
  const byKey = (k: RecordKey) => (qb: any) =>
    qb.where('org_id', '=', k.org_id).where('endpoint', '=', k.endpoint).where('key', '=', k.key);
  return {
    /** Claims a key; false when a record already holds it. */
    async claim(record: IdempotencyRecord): Promise<boolean> {
      const inserted = await db
        .insertInto('idempotency_records')
        .values({ ...record, response: null })
        .onConflict((oc) => oc.columns(['org_id', 'endpoint', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      return !!inserted;
    },
    /** Takes over an expired record; false when someone else did first or it is not expired. */
    async reclaimExpired(record: IdempotencyRecord, now: Date): Promise<boolean> {
      const result = await db
        .updateTable('idempotency_records')
        .set({
          request_hash: record.request_hash,
          state: 'running',
          status_code: null,
          response: null,
          created_at: record.created_at,
          expires_at: record.expires_at,
        })
        .$call(byKey(record))
        .where('expires_at', '<=', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async find(k: RecordKey): Promise<IdempotencyRecord | undefined> {
      return db.selectFrom('idempotency_records').selectAll().$call(byKey(k)).executeTakeFirst() as Promise<IdempotencyRecord | undefined>;
    },
    async complete(k: RecordKey, statusCode: number, response: unknown): Promise<void> {
      await db
        .updateTable('idempotency_records')
        .set({ state: 'completed', status_code: statusCode, response: JSON.stringify(response) })
        .$call(byKey(k))
        .execute();
    },
    async release(k: RecordKey): Promise<void> {
      await db.deleteFrom('idempotency_records').$call(byKey(k)).where('state', '=', 'running').execute();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
