/** Audience rows -> API documents, with segment summaries loaded in one batch per page. */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { dateOnly, matchRate, segmentSummary } from '../segment/present.ts';
import { segmentStore } from '../segment/store.ts';
import type { CountReason } from '../shared/rules.ts';
import type { AudienceDoc } from './schemas.ts';
import { audienceStore, type AudienceRow, type SegmentRef } from './store.ts';

/** `isCustomerList(subtype)`: whether a member subtype is the customer's own list (matched_record_count shown). */
export async function presentAudiences(
  db: Kysely<DB>,
  orgId: string,
  rows: readonly AudienceRow[],
  isCustomerList: (subtype: string) => boolean,
): Promise<AudienceDoc[]> {
  const refsById = await audienceStore.refs(
    db,
    orgId,
    rows.map((r) => r.id),
  );
  const segIds = [...new Set([...refsById.values()].flat().map((r) => r.segment_id))];
  const segments = new Map((await segmentStore.findMany(db, orgId, segIds)).map((s) => [s.id, s]));
  return rows.map((row) => {
    const refs = refsById.get(row.id) ?? [];
    const ids = (role: SegmentRef['role']) => refs.filter((r) => r.role === role).map((r) => r.segment_id);
    // Best effort (spec 2): deleted segments are skipped, so summaries may be shorter than the id lists.
    const summaries = (role: SegmentRef['role']) =>
      ids(role).flatMap((id) => {
        const s = segments.get(id);
        return s ? [segmentSummary(s)] : [];
      });
    const included = ids('include')
      .map((id) => segments.get(id))
      .filter((s) => !!s);
    const doc: AudienceDoc = {
      audience_id: row.id,
      name: row.name,
      status: row.status as AudienceDoc['status'],
      visibility: row.visibility as AudienceDoc['visibility'],
      segment_refs: refs,
      segment_ids: ids('include'),
      excluded_segment_ids: ids('exclude'),
      segments: summaries('include'),
      excluded_segments: summaries('exclude'),
      set_logic: row.set_logic as AudienceDoc['set_logic'],
      record_count: row.record_count,
      record_count_reason: row.record_count === null ? ((row.record_count_reason as CountReason | null) ?? 'not_counted') : null,
      match_count: row.match_count,
      input_record_count: row.input_record_count,
      match_rate: matchRate(row.match_count, row.input_record_count),
      expires_at: dateOnly(row.expires_at),
      snapshot_version: row.snapshot_version,
      version_created_at: row.version_created_at.toISOString(),
      campaign_id: row.campaign_id,
      linked_at: row.linked_at ? row.linked_at.toISOString() : null,
      data_release: { major: row.release_major, minor: row.release_minor },
      parent_audience_id: row.parent_audience_id,
      parent_snapshot_version: row.parent_snapshot_version,
      last_delivery_quote_id: row.last_quote_id,
      last_delivery_quote_cost_cents: row.last_quote_cost_cents,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
    // Present only when a matched segment is included (spec 2).
    if (included.some((s) => isCustomerList(s.subtype))) doc.matched_record_count = row.matched_record_count;
    return doc;
  });
}
