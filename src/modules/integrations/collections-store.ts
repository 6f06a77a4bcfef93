/** Rows of integration match collections (migration 155): collections and captured identities. No rules here. */
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { IntegrationCollectionIdentitiesTable, IntegrationCollectionsTable } from '../../db/schema-integrations.ts';

export type CollectionRow = Selectable<IntegrationCollectionsTable>;
export type IdentityRow = Insertable<IntegrationCollectionIdentitiesTable>;

/** The Integration collection filter (spec 2) as the store applies it; an absent or empty array restricts nothing. */
export interface CollectionFilter {
  providers?: string[];
  connection_ids?: string[];
  integration_run_ids?: string[];
  source_kinds?: ('recurring' | 'batch' | 'file')[];
  boundary_at_from?: string | Date;
  boundary_at_to?: string | Date;
}

/** Rows inserted per statement when capturing a run's identities. */
const INSERT_BATCH = 2000;

function selection(db: Kysely<DB>, collectionId: string, filter: CollectionFilter, now: Date) {
  let q = db.selectFrom('integration_collection_identities').where('collection_id', '=', collectionId).where('expires_at', '>', now);
  if (filter.providers?.length) q = q.where('provider', 'in', filter.providers);
  if (filter.connection_ids?.length) q = q.where('connection_id', 'in', filter.connection_ids);
  if (filter.integration_run_ids?.length) q = q.where('run_id', 'in', filter.integration_run_ids);
  if (filter.source_kinds?.length) q = q.where('source_kind', 'in', filter.source_kinds);
  if (filter.boundary_at_from) q = q.where('boundary_at', '>=', new Date(filter.boundary_at_from));
  if (filter.boundary_at_to) q = q.where('boundary_at', '<=', new Date(filter.boundary_at_to));
  return q;
}

export const collectionStore = {
  collection: (db: Kysely<DB>, orgId: string, id: string) =>
    db.selectFrom('integration_collections').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  list: (db: Kysely<DB>, orgId: string) =>
    db
      .selectFrom('integration_collections')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
  byKind: (db: Kysely<DB>, orgId: string, kind: string) =>
    db.selectFrom('integration_collections').selectAll().where('org_id', '=', orgId).where('kind', '=', kind).executeTakeFirst(),
  /** Inserts unless the organization has a collection of that kind (a concurrent insert loses quietly). */
  insertUnlessExists: (db: Kysely<DB>, row: Insertable<IntegrationCollectionsTable>) =>
    db
      .insertInto('integration_collections')
      .values(row)
      .onConflict((oc) => oc.columns(['org_id', 'kind']).doNothing())
      .execute(),
  /** Moves a collection only from `from` (compare-and-set); returns whether it moved. */
  async move(db: Kysely<DB>, orgId: string, id: string, from: string, set: Updateable<IntegrationCollectionsTable>): Promise<boolean> {
    const r = await db
      .updateTable('integration_collections')
      .set(set)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  update: (db: Kysely<DB>, id: string, set: Updateable<IntegrationCollectionsTable>) =>
    db.updateTable('integration_collections').set(set).where('id', '=', id).execute(),
  allIds: (db: Kysely<DB>, orgId?: string) => {
    let q = db.selectFrom('integration_collections').select(['id', 'org_id']);
    if (orgId) q = q.where('org_id', '=', orgId);
    return q.execute();
  },

  async insertIdentities(db: Kysely<DB>, rows: IdentityRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await db
        .insertInto('integration_collection_identities')
        .values(rows.slice(i, i + INSERT_BATCH))
        .onConflict((oc) => oc.columns(['collection_id', 'run_id', 'person_key']).doNothing())
        .execute();
    }
  },
  async expire(db: Kysely<DB>, now: Date, orgId?: string): Promise<number> {
    let q = db.deleteFrom('integration_collection_identities').where('expires_at', '<=', now);
    if (orgId) q = q.where('org_id', '=', orgId);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows);
  },
  /** Distinct unexpired identities the filter selects. */
  async countDistinct(db: Kysely<DB>, collectionId: string, filter: CollectionFilter, now: Date): Promise<number> {
    const row = await selection(db, collectionId, filter, now)
      .select(sql<string>`count(distinct person_key)`.as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },
  /** Distinct unexpired person keys the filter selects (as text; the Parquet writer orders them). */
  async personKeys(db: Kysely<DB>, collectionId: string, filter: CollectionFilter, now: Date): Promise<string[]> {
    const rows = await selection(db, collectionId, filter, now)
      .select(sql<string>`person_key::text`.as('k'))
      .distinct()
      .execute();
    return rows.map((r) => r.k);
  },

  /** Execution-key runs still waiting for their match to resolve. */
  openPartnerRuns: (db: Kysely<DB>, orgId?: string) => {
    let q = db
      .selectFrom('integration_runs')
      .selectAll()
      .where('oauth_client_id', 'is not', null)
      .where('status', 'in', ['created', 'processing']);
    if (orgId) q = q.where('org_id', '=', orgId);
    return q.orderBy('created_at').execute();
  },
};
