/**
 * PUT {upload_url}: the signature is the only credential. The body streams to the object store (a
 * hitl upload to its staging area); the receipt and, once every declared shard is in, the resolution
 * job are written in one transaction, so a job exists exactly when the last receipt committed.
 */
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { DomainError } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ObjectStore } from '../../objects/store.ts';
import type { UrlSigner } from '../../objects/signed-urls.ts';
import { fileMatchStore, objectKeys } from './store.ts';

export const RESOLVE_JOB = 'file-match-resolve';
export const RESOLVE_QUEUE = { retryLimit: 3, retryDelay: 2, expireInSeconds: 4 * 3600 };

export interface ResolveJobData {
  orgId: string;
  segmentId: string;
  uploadVersion: number;
}

export async function enqueueResolution(queue: JobQueue, trx: Kysely<DB>, data: ResolveJobData): Promise<void> {
  // singletonKey: a second enqueue of the same upload version (a retried confirm) is a no-op.
  await queue.send(RESOLVE_JOB, data, { singletonKey: `${data.segmentId}:v${data.uploadVersion}` }, trx);
}

const conflict = (code: 'UPLOAD_SUPERSEDED' | 'UPLOAD_ALREADY_RECEIVED', message: string, nextStep: string) =>
  new DomainError(code, message, { nextStep });

export function createUploadHandler(deps: {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  objects: ObjectStore;
  signer: (reload?: boolean) => Promise<UrlSigner>;
  segmentExists: (orgId: string, id: string) => Promise<boolean>;
}) {
  const { db, clock } = deps;
  return async function receive(req: {
    query: { expires?: string; signature?: string };
    params: { org: string; seg: string; version: string; shard: string };
    body: Readable;
  }) {
    // The path that was signed, rebuilt from the parameters exactly as they arrived.
    const path = `/v1/uploads/${req.params.org}/${req.params.seg}/${req.params.version}/${req.params.shard}`;
    try {
      (await deps.signer()).verify('PUT', path, req.query, clock.now());
    } catch (error) {
      if ((error as DomainError).code !== 'UPLOAD_URL_INVALID') throw error;
      (await deps.signer(true)).verify('PUT', path, req.query, clock.now());
    }
    const { org, seg } = req.params;
    const version = Number(req.params.version);
    const shard = Number(req.params.shard);
    const fm = await fileMatchStore.find(db, org, seg);
    if (!fm || !(await deps.segmentExists(org, seg))) {
      throw new DomainError('UPLOAD_TARGET_GONE', 'The segment of this upload URL was deleted; the file was not accepted.', {
        nextStep: 'Create a new file match (POST /v1/match/file) and upload to its URL.',
      });
    }
    if (fm.upload_version !== version) {
      throw conflict(
        'UPLOAD_SUPERSEDED',
        'This upload URL belongs to an earlier upload of the segment (it was refreshed since).',
        'Use the URLs returned by the latest refresh.',
      );
    }
    if (!Number.isInteger(shard) || shard < 0 || shard >= fm.shard_count)
      throw new DomainError('UPLOAD_URL_INVALID', 'Unknown shard for this upload.');
    if (fm.matching_status !== 'awaiting_upload') {
      throw conflict(
        'UPLOAD_ALREADY_RECEIVED',
        `Every shard of this upload was received; matching is ${fm.matching_status}.`,
        'Refresh the segment to upload a new file.',
      );
    }
    await deps.queue.ensureQueue(RESOLVE_JOB, RESOLVE_QUEUE); // never create a queue inside the transaction below
    const key = objectKeys.shard(org, seg, version, shard, fm.hitl ? 'staging' : 'final');
    const bytes = await deps.objects.put(key, req.body);
    const now = clock.now();
    const stored = await db.transaction().execute(async (trx) => {
      const locked = await fileMatchStore.find(trx, org, seg, { forUpdate: true });
      if (!locked || locked.upload_version !== version || locked.matching_status !== 'awaiting_upload') {
        throw conflict(
          'UPLOAD_SUPERSEDED',
          'The upload changed while this shard was being received.',
          'Use the URLs returned by the latest refresh.',
        );
      }
      await fileMatchStore.recordShard(trx, { segmentId: seg, uploadVersion: version, shardIndex: shard, objectKey: key, bytes, at: now });
      const received = (await fileMatchStore.shards(trx, seg, version)).length;
      let status = locked.matching_status;
      if (received === locked.shard_count) {
        status = locked.hitl ? 'awaiting_mappings' : 'queued';
        await fileMatchStore.update(trx, org, seg, { matching_status: status, updated_at: now });
        if (!locked.hitl) await enqueueResolution(deps.queue, trx, { orgId: org, segmentId: seg, uploadVersion: version });
      }
      return {
        ok: true,
        segment_id: seg,
        shard_index: shard,
        bytes,
        shards_uploaded: received,
        shard_count: locked.shard_count,
        matching_status: status,
      };
    });
    if (stored.matching_status === 'queued') deps.queue.wake(RESOLVE_JOB); // committed: a local worker starts it now
    return stored;
  };
}
