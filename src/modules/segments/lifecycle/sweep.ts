/**
 * TTL sweep (spec 3): segments and audiences past expires_at move to `expired`. Idempotent and
 * set-based, so any number of workers may run it at once; the clock is injected for tests.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';

export interface SweepResult {
  segments: number;
  audiences: number;
}

export async function sweepExpired(db: Kysely<DB>, clock: Clock): Promise<SweepResult> {
  const now = clock.now();
  // Segments and audiences expire by the same rule: past expires_at, not deleted, not already expired.
  const expire = async (table: 'segments' | 'audiences') =>
    Number(
      (
        await db
          .updateTable(table)
          .set({ status: 'expired', updated_at: now })
          .where('expires_at', '<=', now)
          .where('status', '!=', 'expired')
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
      ).numUpdatedRows,
    );
  return { segments: await expire('segments'), audiences: await expire('audiences') };
}
