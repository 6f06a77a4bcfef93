/**
 * Matched scratch segments (spec 4.5 `create_scratch_segment`): an ephemeral `matched` segment whose
 * member set was already materialized by its producer (POST /v1/match writes the Parquet of person
 * keys). Kept apart from service.ts because nothing here validates customer input: the caller has
 * the resolved members; this only records them. No audience, no event: scratch is private working state.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { ephemeralExpiry } from './common.ts';
import type { ReleaseRef } from './ports.ts';
import { presentSegment } from './present.ts';
import { segmentStore } from './store.ts';

export interface ScratchMatchedSegmentInput {
  orgId: string;
  userId: string;
  name: string;
  /** Absolute path of a Parquet file with one `person_key` column. */
  membersPath: string;
  /** Distinct persons in the member set (the customer's own list: exact, no privacy floor). */
  memberCount: number;
  inputRecordCount: number;
  matchCount: number;
  release: ReleaseRef;
  ttlHours: number;
  now: Date;
  /** Pre-generated id, so the caller can name the members file after the segment. */
  id?: string;
  /** Subtype details shown on read (file_format etc.). */
  details?: Record<string, unknown>;
}

/** Inserts the segment (in `db`, which may be the caller's transaction) and returns its API document. */
export async function createScratchMatchedSegment(db: Kysely<DB>, input: ScratchMatchedSegmentInput) {
  const id = input.id ?? newId('seg');
  const now = input.now;
  await segmentStore.insert(db, {
    id, org_id: input.orgId, name: input.name, subtype: 'matched', status: 'active', visibility: 'org', created_by: input.userId,
    ephemeral: true, record_count: input.memberCount, record_count_reason: null, current_version: 1, version_created_at: now,
    record_limit: null, filter_groups: null,
    details: JSON.stringify({ file_format: 'json', shard_count: 1, mapping_confirmed: true, column_mappings: null, ...input.details }),
    input_record_count: input.inputRecordCount, match_count: input.matchCount, members_path: input.membersPath,
    shared_source_segment_id: null, error_message: null, workflow_run_id: null, origin_campaign_id: null, webhook_url: null,
    release_major: input.release.major, release_minor: input.release.minor,
    parent_segment_id: null, root_segment_id: null, parent_version: null,
    expires_at: ephemeralExpiry(now, input.ttlHours), created_at: now, updated_at: now, deleted_at: null,
  });
  const row = await segmentStore.find(db, input.orgId, id);
  return presentSegment(row!);
}

export const newSegmentId = () => newId('seg');
