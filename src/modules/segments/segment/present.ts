/** Segment row -> API document. Only whitelisted fields leave (the response schema enforces it too). */
import type { FilterGroup } from '../../../graph/index.ts';
import type { CountReason } from '../shared/rules.ts';
import type { SubtypeFields } from '../subtypes/registry.ts';
import type { SegmentDoc } from './schemas.ts';
import type { SegmentRow } from './store.ts';

export const dateOnly = (d: Date) => d.toISOString().slice(0, 10);

export interface SegmentUsage {
  audience_count: number;
  campaign_count: number;
}

/** match_count / input_record_count with 4 decimals, or null unless both are known (spec 2). */
export const matchRate = (matchCount: number | null, inputCount: number | null) =>
  matchCount !== null && inputCount ? Math.round((matchCount / inputCount) * 1e4) / 1e4 : null;

function countReason(row: SegmentRow): CountReason | null {
  if (row.record_count !== null) return null;
  return (row.record_count_reason as CountReason | null) ?? (row.status === 'pending' ? 'counting' : 'not_counted');
}

/** The document of a segment; `fields` are the subtype's own (from the registry). */
export function presentSegment(row: SegmentRow, fields: SubtypeFields, usage?: SegmentUsage): SegmentDoc {
  const groups = (row.filter_groups as FilterGroup[] | null) ?? null;
  return {
    segment_id: row.id,
    name: row.name,
    subtype: row.subtype as SegmentDoc['subtype'],
    status: row.status as SegmentDoc['status'],
    visibility: row.visibility as SegmentDoc['visibility'],
    ephemeral: row.ephemeral,
    record_count: row.record_count,
    record_count_reason: countReason(row),
    // Spec 2: date-only for persistent segments, a full date-time for the short ephemeral TTL.
    expires_at: row.ephemeral ? row.expires_at.toISOString() : dateOnly(row.expires_at),
    current_version: row.current_version,
    version_created_at: row.version_created_at.toISOString(),
    record_limit: row.record_limit,
    filters: groups && groups.length === 1 ? (groups[0]!.filters as unknown as SegmentDoc['filters']) : null,
    filter_groups: groups as unknown as SegmentDoc['filter_groups'],
    shared_source_data: row.shared_source_segment_id !== null,
    origin_campaign_id: row.origin_campaign_id,
    data_release: { major: row.release_major, minor: row.release_minor },
    lineage: { parent_segment_id: row.parent_segment_id, root_segment_id: row.root_segment_id, parent_version: row.parent_version },
    ...fields,
    ...(row.status === 'failed' && row.error_message ? { error_message: row.error_message } : {}),
    ...(usage ?? {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The summary embedded in audiences and campaign items (spec 2 "segment summary"; its id is `id`). */
export function segmentSummary(row: SegmentRow) {
  return {
    id: row.id,
    name: row.name,
    subtype: row.subtype,
    status: row.status,
    record_count: row.record_count,
    input_record_count: row.input_record_count,
    match_count: row.match_count,
    filter_groups: (row.filter_groups as FilterGroup[] | null) ?? null,
    current_version: row.current_version,
    record_limit: row.record_limit,
  };
}
