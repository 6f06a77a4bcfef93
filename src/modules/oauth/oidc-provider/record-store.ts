import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, OAuthRecordsTable } from '../../../db/schema.ts';

export type RecordRow = Selectable<OAuthRecordsTable>;

export interface RecordWrite {
  model: string;
  key: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  accountId: string | null;
  clientId: string | null;
  now: Date;
  expiresAt: Date | null;
}

/** SQL over oauth_records, the authorization server's state (one row per oidc-provider model instance). */
export function createRecordStore(db: Kysely<DB>) {
  return {
    async upsert(w: RecordWrite): Promise<void> {
      const values = {
        payload: JSON.stringify(w.payload),
        grant_id: w.grantId,
        user_code: w.userCode,
        uid: w.uid,
        account_id: w.accountId,
        client_id: w.clientId,
        expires_at: w.expiresAt,
      };
      // A re-save keeps the columns only this service sets (org, client name, device polling).
      await db
        .insertInto('oauth_records')
        .values({ model: w.model, key: w.key, created_at: w.now, ...values })
        .onConflict((oc) => oc.columns(['model', 'key']).doUpdateSet(values))
        .execute();
    },
    find(model: string, key: string): Promise<RecordRow | undefined> {
      return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where('key', '=', key).executeTakeFirst();
    },
    findBy(model: string, column: 'uid' | 'user_code', value: string): Promise<RecordRow | undefined> {
      return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where(column, '=', value).executeTakeFirst();
    },
    async consume(model: string, key: string, at: Date): Promise<void> {
      await db.updateTable('oauth_records').set({ consumed_at: at }).where('model', '=', model).where('key', '=', key).execute();
    },
    async destroy(model: string, key: string): Promise<void> {
      await db.deleteFrom('oauth_records').where('model', '=', model).where('key', '=', key).execute();
    },
    async revokeByGrantId(model: string, grantId: string): Promise<void> {
      await db.deleteFrom('oauth_records').where('model', '=', model).where('grant_id', '=', grantId).execute();
    },

    /** Ends a grant at once: the grant and every code and token issued under it. */
    async revokeGrant(grantId: string): Promise<number> {
      const result = await db
        .deleteFrom('oauth_records')
        .where((eb) => eb.or([eb('grant_id', '=', grantId), eb.and([eb('model', '=', 'Grant'), eb('key', '=', grantId)])]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Grant ids a person holds (removal and suspension end them all). */
    async grantIdsOfAccount(accountId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('oauth_records')
        .select('key')
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .execute();
      return rows.map((r) => r.key);
    },
    /** Records who consented in which organization, and the client name they saw, on the grant row. */
    async annotateGrant(grantId: string, orgId: string, clientName: string): Promise<void> {
      await db
        .updateTable('oauth_records')
        .set({ org_id: orgId, client_name: clientName })
        .where('model', '=', 'Grant')
        .where('key', '=', grantId)
        .execute();
    },
    /** The organization's grants that have not expired, newest first. */
    listGrants(orgId: string, now: Date): Promise<RecordRow[]> {
      return db
        .selectFrom('oauth_records')
        .selectAll()
        .where('model', '=', 'Grant')
        .where('org_id', '=', orgId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at', 'desc')
        .orderBy('key', 'desc')
        .limit(500)
        .execute();
    },

    /**
     * One device-code poll: records its time and answers whether it came sooner than the interval the
     * client must keep; if so the interval grows by five seconds (RFC 8628 slow_down).
     */
    async devicePoll(key: string, now: Date, baseInterval: number): Promise<{ tooFast: boolean; interval: number } | null> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('oauth_records')
          .select(['last_polled_at', 'poll_interval'])
          .where('model', '=', 'DeviceCode')
          .where('key', '=', key)
          .forUpdate()
          .executeTakeFirst();
        if (!row) return null;
        const interval = row.poll_interval ?? baseInterval;
        const tooFast = !!row.last_polled_at && now.getTime() - new Date(row.last_polled_at).getTime() < interval * 1000;
        const next = tooFast ? interval + 5 : interval;
        await trx
          .updateTable('oauth_records')
          .set({ last_polled_at: now, poll_interval: next })
          .where('model', '=', 'DeviceCode')
          .where('key', '=', key)
          .execute();
        return { tooFast, interval: next };
      });
    },

    /** Drops records a day past their expiry (kept that long so an expired token reads as expired, not unknown). */
    async sweep(now: Date): Promise<number> {
      const result = await db
        .deleteFrom('oauth_records')
        .where('expires_at', '<', sql<Date>`${now}::timestamptz - interval '1 day'`)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type RecordStore = ReturnType<typeof createRecordStore>;
