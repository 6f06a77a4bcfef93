/** Rows of the integrations area (migration 060): connections, pending authorizations, runs. No rules here. */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, IntegrationConnectionsTable, IntegrationRunRecordsTable, IntegrationRunsTable } from '../../db/schema.ts';
import { afterKey } from '../../db/keyset.ts';
import type { CursorKey } from '../../core/page.ts';

export type ConnectionRow = Selectable<IntegrationConnectionsTable>;
export type RunRow = Selectable<IntegrationRunsTable>;

export const integrationStore = {
  liveConnection: (db: Kysely<DB>, orgId: string, provider: string) =>
    db
      .selectFrom('integration_connections')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('provider', '=', provider)
      .where('status', '=', 'connected')
      .executeTakeFirst(),
  connection: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('integration_connections').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  accountConnection: (db: Kysely<DB>, provider: string, accountId: string) =>
    db
      .selectFrom('integration_connections')
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_account_id', '=', accountId)
      .where('status', '=', 'connected')
      .executeTakeFirst(),
  liveConnections: (db: Kysely<DB>, orgId: string) =>
    db
      .selectFrom('integration_connections')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('status', '=', 'connected')
      .orderBy('created_at', 'desc')
      .execute(),
  insertConnection: (db: Kysely<DB>, row: Insertable<IntegrationConnectionsTable>) =>
    db.insertInto('integration_connections').values(row).execute(),
  updateConnection: (db: Kysely<DB>, id: string, set: Updateable<IntegrationConnectionsTable>) =>
    db.updateTable('integration_connections').set(set).where('id', '=', id).execute(),

  /** Stores a pending authorization, dropping the organization's expired ones. */
  async insertAuthorization(
    db: Kysely<DB>,
    row: { state: string; org_id: string; user_id: string; provider: string; expires_at: Date },
    now: Date,
  ) {
    await db.deleteFrom('integration_authorizations').where('org_id', '=', row.org_id).where('expires_at', '<=', now).execute();
    await db.insertInto('integration_authorizations').values(row).execute();
  },
  /** Takes (reads and deletes) a pending authorization: a state is used once. */
  async takeAuthorization(db: Kysely<DB>, state: string) {
    return db.deleteFrom('integration_authorizations').where('state', '=', state).returningAll().executeTakeFirst();
  },

  insertRun: (db: Kysely<DB>, row: Insertable<IntegrationRunsTable>) => db.insertInto('integration_runs').values(row).execute(),
  run: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('integration_runs').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  runById: (db: Kysely<DB>, id: string) => db.selectFrom('integration_runs').selectAll().where('id', '=', id).executeTakeFirst(),
  listRuns(db: Kysely<DB>, orgId: string, after: CursorKey | null, fetch: number) {
    let q = db.selectFrom('integration_runs').selectAll().where('org_id', '=', orgId);
    if (after) q = q.where((eb) => afterKey(eb, after, { at: 'created_at', id: 'id' }));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetch).execute();
  },
  /** Moves a run only from one of `from` (a compare-and-set); returns whether it moved. */
  async moveRun(
    db: Kysely<DB>,
    id: string,
    from: readonly string[],
    set: Updateable<IntegrationRunsTable>,
    options: { unlessCancelRequested?: boolean } = {},
  ): Promise<boolean> {
    let q = db
      .updateTable('integration_runs')
      .set(set)
      .where('id', '=', id)
      .where('status', 'in', from as string[]);
    if (options.unlessCancelRequested) q = q.where('cancel_requested', '=', false);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  updateRun: (db: Kysely<DB>, id: string, set: Updateable<IntegrationRunsTable>) =>
    db.updateTable('integration_runs').set(set).where('id', '=', id).execute(),
};

/** Rows of an ingest run's output (migration 150). */
export const recordStore = {
  /** Replaces a run's records (a retried job writes them again from the first). */
  async replace(db: Kysely<DB>, runId: string, rows: Insertable<IntegrationRunRecordsTable>[]) {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('integration_run_records').where('run_id', '=', runId).execute();
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto('integration_run_records')
          .values(rows.slice(i, i + 500))
          .execute();
    });
  },
  page: (db: Kysely<DB>, orgId: string, runId: string, afterSeq: number, fetch: number) =>
    db
      .selectFrom('integration_run_records')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(fetch)
      .execute(),
};
