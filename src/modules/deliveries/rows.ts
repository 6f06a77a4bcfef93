/**
 * The rows of a completed download delivery, read back inside the service (an integration run pushes an
 * audience to a provider through a delivery of it: decision 038). CSV parts, uncompressed, as exported, streamed
 * part by part (an audience may be far larger than memory should hold).
 */
import fs from 'node:fs';
import { parse } from 'csv-parse';
import type { Kysely } from 'kysely';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { ObjectStore } from '../../objects/store.ts';
import { partsOf } from './present.ts';
import { deliveryStore } from './store.ts';

export function createRowReader(deps: { db: Kysely<DB>; objects: ObjectStore }) {
  return async function* rows(orgId: string, deliveryId: string): AsyncGenerator<Record<string, string>> {
    const row = await deliveryStore.find(deps.db, orgId, deliveryId);
    if (
      !row ||
      row.status !== 'completed' ||
      row.destination !== 'download' ||
      row.output_format !== 'csv' ||
      row.output_compression !== 'none'
    ) {
      throw new DomainError('DELIVERY_NOT_FOUND', `No completed uncompressed CSV download delivery ${deliveryId}.`);
    }
    for (const part of partsOf(row)) {
      const file = deps.objects.pathOf(part.location);
      if (!fs.existsSync(file)) throw new DomainError('DOWNLOAD_GONE', 'The delivered file is no longer available.');
      for await (const record of fs.createReadStream(file).pipe(parse({ columns: true }))) yield record as Record<string, string>;
    }
  };
}
