/** The one place a segments row is built, for every subtype and every area that creates segments. */
import type { Insertable } from 'kysely';
import type { SegmentsTable } from '../../../db/schema.ts';
import type { FilterGroup } from '../../../graph/index.ts';
import type { ReleaseRef } from '../shared/ports.ts';
import type { ShownCount } from '../shared/rules.ts';
import type { Subtype } from '../subtypes/registry.ts';

export interface NewSegment {
  id: string;
  orgId: string;
  name: string;
  subtype: Subtype;
  status: 'active' | 'pending';
  visibility: 'org' | 'private';
  createdBy: string;
  count: ShownCount;
  release: ReleaseRef;
  now: Date;
  expiresAt: Date;
  ephemeral?: boolean;
  /** Filter subtype: the saved groups and cap. */
  filterGroups?: FilterGroup[] | null;
  recordLimit?: number | null;
  /** Subtype fields (typed by the subtype that owns them), stored as JSON. */
  details?: object;
  inputRecordCount?: number | null;
  matchCount?: number | null;
  membersPath?: string | null;
  sharedSourceSegmentId?: string | null;
  workflowRunId?: string | null;
  originCampaignId?: string | null;
  webhookUrl?: string | null;
  lineage?: { parentSegmentId: string; rootSegmentId: string; parentVersion: number };
}

export function newSegmentRow(s: NewSegment): Insertable<SegmentsTable> {
  return {
    id: s.id,
    org_id: s.orgId,
    name: s.name,
    subtype: s.subtype,
    status: s.status,
    visibility: s.visibility,
    created_by: s.createdBy,
    ephemeral: s.ephemeral ?? false,
    record_count: s.count.record_count,
    record_count_reason: s.count.record_count_reason,
    current_version: 1,
    version_created_at: s.now,
    record_limit: s.recordLimit ?? null,
    filter_groups: s.filterGroups ? JSON.stringify(s.filterGroups) : null,
    details: JSON.stringify(s.details ?? {}),
    input_record_count: s.inputRecordCount ?? null,
    match_count: s.matchCount ?? null,
    members_path: s.membersPath ?? null,
    shared_source_segment_id: s.sharedSourceSegmentId ?? null,
    error_message: null,
    workflow_run_id: s.workflowRunId ?? null,
    origin_campaign_id: s.originCampaignId ?? null,
    webhook_url: s.webhookUrl ?? null,
    release_major: s.release.major,
    release_minor: s.release.minor,
    parent_segment_id: s.lineage?.parentSegmentId ?? null,
    root_segment_id: s.lineage?.rootSegmentId ?? null,
    parent_version: s.lineage?.parentVersion ?? null,
    expires_at: s.expiresAt,
    created_at: s.now,
    updated_at: s.now,
    deleted_at: null,
  };
}
