/** SQL of file matches and their shard receipts. Every read is scoped by organization. */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, FileMatchesTable } from '../../db/schema.ts';

export type FileMatchRow = Selectable<FileMatchesTable> & { created_at: Date; updated_at: Date };

export const fileMatchStore = {
  async insert(db: Kysely<DB>, row: Insertable<FileMatchesTable>): Promise<void> {
    await db.insertInto('file_matches').values(row).execute();
  },

  async find(db: Kysely<DB>, orgId: string, segmentId: string, opts: { forUpdate?: boolean } = {}): Promise<FileMatchRow | undefined> {
    let q = db.selectFrom('file_matches').selectAll().where('org_id', '=', orgId).where('segment_id', '=', segmentId);
    if (opts.forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) as FileMatchRow | undefined;
  },

  async update(db: Kysely<DB>, orgId: string, segmentId: string, patch: Updateable<FileMatchesTable>): Promise<void> {
    await db.updateTable('file_matches').set(patch).where('org_id', '=', orgId).where('segment_id', '=', segmentId).execute();
  },

  async recordShard(
    db: Kysely<DB>,
    s: { segmentId: string; uploadVersion: number; shardIndex: number; objectKey: string; bytes: number; at: Date },
  ): Promise<void> {
    await db
      .insertInto('file_match_shards')
      .values({
        segment_id: s.segmentId,
        upload_version: s.uploadVersion,
        shard_index: s.shardIndex,
        object_key: s.objectKey,
        bytes: s.bytes,
        uploaded_at: s.at,
      })
      .onConflict((oc) =>
        oc
          .columns(['segment_id', 'upload_version', 'shard_index'])
          .doUpdateSet({ object_key: s.objectKey, bytes: s.bytes, uploaded_at: s.at }),
      )
      .execute();
  },

  async shards(db: Kysely<DB>, segmentId: string, uploadVersion: number) {
    return db
      .selectFrom('file_match_shards')
      .selectAll()
      .where('segment_id', '=', segmentId)
      .where('upload_version', '=', uploadVersion)
      .orderBy('shard_index')
      .execute();
  },
};

/** Object keys: an upload version's shards (staged for hitl, final otherwise) and a run's results. */
export const objectKeys = {
  shard: (orgId: string, segmentId: string, version: number, shard: number, area: 'staging' | 'final') =>
    `uploads/${orgId}/${segmentId}/v${version}/${area}/shard-${shard}`,
  uploadRoot: (orgId: string, segmentId: string, version: number) => `uploads/${orgId}/${segmentId}/v${version}`,
  run: (orgId: string, segmentId: string, version: number, runId: string) => `results/${orgId}/${segmentId}/v${version}/run-${runId}`,
  uploadPath: (orgId: string, segmentId: string, version: number, shard: number) => `/v1/uploads/${orgId}/${segmentId}/${version}/${shard}`,
};
