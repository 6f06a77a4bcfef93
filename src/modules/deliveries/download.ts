/**
 * GET {download_url}: a part of a completed download delivery, by its HMAC-signed URL (method, path and
 * expiry signed; src/objects/signed-urls.ts). The URL is the only credential.
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import { DomainError, isDomainError } from '../../core/errors.ts';
import { fileBody, type FileBody } from '../../core/operation.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ObjectStore } from '../../objects/store.ts';
import type { UrlSigner } from '../../objects/signed-urls.ts';
import type { DeletedSourceCheck } from './deleted-members.ts';
import { downloadPath, partsOf } from './present.ts';
import { deliveryStore } from './store.ts';

export type DownloadHandler = (
  params: { org: string; did: string; part: string },
  query: { expires?: string; signature?: string },
) => Promise<FileBody>;

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv',
  json: 'application/x-ndjson',
  jsonl: 'application/x-ndjson',
  avro: 'application/avro',
};

export function createDownloadHandler(deps: {
  db: Kysely<DB>;
  clock: Clock;
  objects: ObjectStore;
  signer: () => Promise<UrlSigner>;
  sourceDeleted: DeletedSourceCheck;
}): DownloadHandler {
  return async (params, query) => {
    const signer = await deps.signer();
    try {
      signer.verify('GET', downloadPath(params.org, params.did, params.part), query, deps.clock.now());
    } catch (error) {
      if (!isDomainError(error)) throw error;
      if (error.code === 'UPLOAD_URL_EXPIRED') {
        throw new DomainError('DOWNLOAD_URL_EXPIRED', 'The download URL has expired.', {
          details: error.details,
          nextStep: 'GET /v1/audiences/{id}/deliveries/{delivery_id} returns fresh download URLs (valid 24 hours).',
        });
      }
      throw new DomainError('DOWNLOAD_URL_INVALID', 'The download URL is not valid (tampered, truncated or for another part).', {
        nextStep: 'Use the download_urls exactly as returned by GET /v1/audiences/{id}/deliveries/{delivery_id}.',
      });
    }
    const row = await deliveryStore.find(deps.db, params.org, params.did);
    const part =
      row && row.status === 'completed' && row.destination === 'download' ? partsOf(row).find((p) => p.name === params.part) : undefined;
    const file = part ? deps.objects.pathOf(part.location) : null;
    if (!part || !file || !fs.existsSync(file))
      throw new DomainError('DOWNLOAD_GONE', 'The delivered file is no longer available.', { nextStep: 'Request the delivery again.' });
    // A signed URL outlives nothing: once a segment the rows came from is deleted, they are not served.
    if (await deps.sourceDeleted(row!)) {
      throw new DomainError('DOWNLOAD_GONE', 'A segment this delivery was made from has been deleted; its files are no longer served.', {
        nextStep: 'Deliver an audience whose segments still exist.',
      });
    }
    const ext = part.name.replace(/\.gz$/, '').split('.').pop() ?? '';
    return fileBody({
      path: file,
      fileName: part.name,
      bytes: fs.statSync(file).size,
      contentType: part.name.endsWith('.gz') ? 'application/gzip' : (CONTENT_TYPES[ext] ?? 'application/octet-stream'),
    });
  };
}
