import type { Insertable } from 'kysely';
import type { AudiencesTable } from '../../../db/schema.ts';
import type { ReleaseRef } from '../shared/ports.ts';
import { persistentExpiry, type ShownCount } from '../shared/rules.ts';

export interface NewAudience {
  id: string;
  orgId: string;
  name: string;
  visibility: 'org' | 'private';
  createdBy: string;
  setLogic: 'union' | 'intersection';
  count: ShownCount;
  release: ReleaseRef;
  campaignId: string | null;
  now: Date;
  parent?: { id: string; snapshotVersion: number };
}

/** A new audience: active, snapshot 1, 90-day hard expiry from creation (spec 2). */
export function audienceRow(a: NewAudience): Insertable<AudiencesTable> {
  return {
    id: a.id,
    org_id: a.orgId,
    name: a.name,
    status: 'active',
    visibility: a.visibility,
    created_by: a.createdBy,
    set_logic: a.setLogic,
    record_count: a.count.record_count,
    record_count_reason: a.count.record_count_reason,
    counted_version: a.count.record_count_reason === 'counting' ? null : 1,
    matched_record_count: null,
    match_count: null,
    input_record_count: null,
    snapshot_version: 1,
    version_created_at: a.now,
    release_major: a.release.major,
    release_minor: a.release.minor,
    campaign_id: a.campaignId,
    linked_at: a.campaignId ? a.now : null,
    parent_audience_id: a.parent?.id ?? null,
    parent_snapshot_version: a.parent?.snapshotVersion ?? null,
    last_quote_id: null,
    last_quote_cost_cents: null,
    expires_at: persistentExpiry(a.now),
    created_at: a.now,
    updated_at: a.now,
    deleted_at: null,
  };
}
