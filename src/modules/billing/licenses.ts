/**
 * Identity licenses: one row per (organization, person key) in `identity_licenses` with its license
 * period (LICENSE_MONTHS). A delivery bills only identities without an active license; delivering a
 * licensed identity again (a refresh, also after a new major release) is free and does not extend the
 * period. Lookups and writes go in chunks over the primary key, so the cost grows with the identities
 * of the delivery, not with the organization's history.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The license period of a delivered identity (docs/decisions/030-billing-ledger-and-credits.md). */
export const LICENSE_MONTHS = 12;
/** Keys per statement: one array parameter each (no per-key parameters to parse). */
const CHUNK = 50_000;

export function licenseExpiry(from: Date): Date {
  const d = new Date(from);
  d.setUTCMonth(d.getUTCMonth() + LICENSE_MONTHS);
  return d;
}

/** Distinct safe-integer person keys of an identity list (ids a delivery names more than once count once). */
export function distinctKeys(identities: Iterable<number | bigint | string>): number[] {
  const out = new Set<number>();
  for (const v of identities) {
    const n = Number(v);
    if (Number.isSafeInteger(n) && n >= 0) out.add(n);
  }
  return [...out];
}

export const licenseStore = {
  /** How many of `keys` hold a license of `orgId` active at `at`. */
  async countActive(db: Kysely<DB>, orgId: string, keys: number[], at: Date): Promise<number> {
    let n = 0;
    for (let i = 0; i < keys.length; i += CHUNK) {
      const part = keys.slice(i, i + CHUNK);
      const r = await sql<{ n: string | number }>`SELECT count(*) AS n FROM identity_licenses
        WHERE org_id = ${orgId} AND person_key = ANY(${part}::bigint[]) AND expires_at > ${at}::timestamptz`.execute(db);
      n += Number(r.rows[0]?.n ?? 0);
    }
    return n;
  },

  /**
   * Licenses `keys` to `orgId` from `at` inside `trx` and returns how many were newly licensed (no
   * license, or an expired one): those are the billable identities. An active license is left as it
   * is. A racing transaction licensing the same key waits on the row and then counts it as licensed.
   */
  async license(trx: Kysely<DB>, orgId: string, keys: number[], at: Date, ledgerId: string): Promise<number> {
    const expires = licenseExpiry(at);
    let n = 0;
    for (let i = 0; i < keys.length; i += CHUNK) {
      const part = keys.slice(i, i + CHUNK);
      const rows = await sql<{ one: number }>`INSERT INTO identity_licenses (org_id, person_key, licensed_at, expires_at, ledger_id)
        SELECT ${orgId}::text, k, ${at}::timestamptz, ${expires}::timestamptz, ${ledgerId}::text FROM unnest(${part}::bigint[]) AS k
        ON CONFLICT (org_id, person_key) DO UPDATE SET licensed_at = excluded.licensed_at, expires_at = excluded.expires_at, ledger_id = excluded.ledger_id
        WHERE identity_licenses.expires_at <= ${at}
        RETURNING 1 AS one`.execute(trx);
      n += rows.rows.length;
    }
    return n;
  },

  async countForOrg(db: Kysely<DB>, orgId: string, at: Date): Promise<number> {
    const r = await db
      .selectFrom('identity_licenses')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('org_id', '=', orgId)
      .where('expires_at', '>', at)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },
};
