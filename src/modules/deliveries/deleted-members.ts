/**
 * Whether a delivery's rows came from a segment deleted since (spec 3: a deleted segment is removed
 * from every read surface). Its download then serves nothing (410 DOWNLOAD_GONE) and a delivery still
 * processing fails (SEGMENT_DELETED) rather than export it. The rows come from the included segments
 * the delivery pinned; an excluded segment's members are not in the file.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { DeliverySnapshot } from './request.ts';
import type { DeliveryRow } from './store.ts';

/** The included segments a delivery's rows come from (rows older than snapshots name their matched segment only). */
function sourceSegmentIds(row: Pick<DeliveryRow, 'snapshot' | 'matched_segment_id'>): string[] {
  const pinned = row.snapshot
    ? (JSON.parse(row.snapshot) as DeliverySnapshot).segments.filter((s) => s.role === 'include').map((s) => s.segment_id)
    : [];
  return [...new Set([...pinned, ...(row.matched_segment_id ? [row.matched_segment_id] : [])])];
}

export function deletedSourceCheck(db: Kysely<DB>, segments: Pick<SegmentsApi, 'findSegments'>) {
  return async (row: Pick<DeliveryRow, 'org_id' | 'snapshot' | 'matched_segment_id'>): Promise<boolean> => {
    const ids = sourceSegmentIds(row);
    if (ids.length === 0) return false;
    return (await segments.findSegments(db, row.org_id, ids)).length < ids.length;
  };
}

export type DeletedSourceCheck = ReturnType<typeof deletedSourceCheck>;
