import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export function createRateLimitStore(db: Kysely<DB>) {
  return {
    /** Adds `amount` (negative to give back) to a key's counter for one window; returns the new total. Keys are organization ids or prefixed keys such as `exchange-key:<hash>`. */
    async addToWindow(orgId: string, windowStart: Date, amount: number): Promise<number> {
      const row = await db
        .insertInto('rate_limit_windows')
        .values({ org_id: orgId, window_start: windowStart, used: amount })
        .onConflict((oc) => oc.columns(['org_id', 'window_start']).doUpdateSet({ used: sql`rate_limit_windows.used + ${amount}` }))
        .returning('used')
        .executeTakeFirstOrThrow();
      return Number(row.used);
    },
    /** A key's total for one window (0 when it has none). */
    async readWindow(key: string, windowStart: Date): Promise<number> {
      const row = await db
        .selectFrom('rate_limit_windows')
        .select('used')
        .where('org_id', '=', key)
        .where('window_start', '=', windowStart)
        .executeTakeFirst();
      return row ? Number(row.used) : 0;
    },
    async deleteWindowsBefore(before: Date): Promise<void> {
      await db.deleteFrom('rate_limit_windows').where('window_start', '<', before).execute();
    },
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
