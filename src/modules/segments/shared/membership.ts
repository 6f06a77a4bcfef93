/** Segment rows -> the warehouse membership contract (src/graph/membership/types.ts). */
import type { FilterGroup } from '../../../graph/index.ts';
import type { Composition, MembershipQuery, SegmentMembership } from '../../../graph/index.ts';
import type { SegmentRow } from '../segment/store.ts';

export type MembershipFields = Pick<SegmentRow, 'id' | 'subtype' | 'filter_groups' | 'record_limit' | 'current_version' | 'members_path'>;

/**
 * The capped subset is seeded by segment id and version: every count and delivery of one version
 * selects the same members, and a refresh (new version) draws afresh.
 */
export const subsetSeed = (segmentId: string, version: number) => `${segmentId}:v${version}`;

/** Members defined by filters over the graph (the filter subtype). */
export function filterMembership(row: MembershipFields): SegmentMembership {
  return {
    kind: 'filter',
    segmentId: row.id,
    groups: row.filter_groups as FilterGroup[],
    recordLimit: row.record_limit,
    subsetSeed: subsetSeed(row.id, row.current_version),
  };
}

/** Members materialized as a Parquet set of person keys (matched, similarity, propensity). */
export function materializedMembership(row: MembershipFields): SegmentMembership {
  return {
    kind: 'members',
    segmentId: row.id,
    subtype: row.subtype as 'matched' | 'similarity' | 'propensity',
    parquetPath: row.members_path,
  };
}

export function compositionQuery(composition: Composition): MembershipQuery {
  return { kind: 'composition', composition };
}
