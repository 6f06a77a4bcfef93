/** Segment row -> API document. Only whitelisted fields leave (the response schema enforces it too). */
import type { FilterGroup } from '../../graph/filters/index.ts';
import type { SegmentRow } from './store.ts';

export const dateOnly = (d: Date) => d.toISOString().slice(0, 10);

export function presentSegment(row: SegmentRow, usage?: { audience_count: number; campaign_count: number }) {
  const groups = (row.filter_groups as FilterGroup[] | null) ?? null;
  const details = (row.details ?? {}) as Record<string, unknown>;
  const doc: Record<string, unknown> = {
    segment_id: row.id,
    name: row.name,
    subtype: row.subtype,
    status: row.status,
    visibility: row.visibility,
    ephemeral: row.ephemeral,
    record_count: row.record_count,
    record_count_reason: row.record_count === null ? (row.record_count_reason ?? (row.status === 'pending' ? 'counting' : 'not_counted')) : null,
    // Spec 2: date-only for persistent segments, a full date-time for the short ephemeral TTL.
    expires_at: row.ephemeral ? row.expires_at.toISOString() : dateOnly(row.expires_at),
    current_version: row.current_version,
    version_created_at: row.version_created_at.toISOString(),
    record_limit: row.record_limit,
    filters: groups && groups.length === 1 ? groups[0]!.filters : null,
    filter_groups: groups,
    shared_source_data: row.shared_source_segment_id !== null,
    origin_campaign_id: row.origin_campaign_id,
    data_release: { major: row.release_major, minor: row.release_minor },
    lineage: { parent_segment_id: row.parent_segment_id, root_segment_id: row.root_segment_id, parent_version: row.parent_version },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (row.subtype === 'matched') {
    Object.assign(doc, {
      file_format: details.file_format ?? 'csv',
      compression: 'none',
      shard_count: details.shard_count ?? 1,
      column_mappings: details.column_mappings ?? null,
      mapping_confirmed: details.mapping_confirmed ?? false,
      input_record_count: row.input_record_count,
      match_count: row.match_count,
      match_rate: row.match_count !== null && row.input_record_count ? Math.round((row.match_count / row.input_record_count) * 1e4) / 1e4 : null,
    });
  }
  if (row.subtype === 'similarity' || row.subtype === 'propensity') {
    for (const k of ['seed_description', 'seed_segment_id', 'positive_class_segment_id'] as const) if (typeof details[k] === 'string') doc[k] = details[k];
    doc.workflow_run_id = row.workflow_run_id;
  }
  if (row.status === 'failed' && row.error_message) doc.error_message = row.error_message;
  if (usage) Object.assign(doc, usage);
  return doc;
}

/** The summary embedded in audiences (spec 2 "segment summary"). */
export function segmentSummary(row: SegmentRow) {
  return {
    segment_id: row.id,
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
