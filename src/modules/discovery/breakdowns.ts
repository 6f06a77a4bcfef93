/**
 * group_by and the default breakdowns.
 *
 * Default breakdowns (when group_by is absent and the input is raw filters, one filter segment or an
 * audience) are what planners ask first: gender, age band, household income band, and state (top
 * 10 plus `other`). They come from ONE integer GROUP BY over the discovery table's `breakdown_key`,
 * decoded into per-dimension buckets by the release's `breakdown_codes` in the same statement (so a
 * release switch between two reads cannot mix codes; see graph/discovery-table.ts). A group_by groups
 * by one column, its total summed from the buckets on the same pass. Both statements are built by
 * graph/membership (with set hashes and low-effect items per bucket). Every bucket
 * below its set's threshold is suppressed, and every shown one noised by its own set, by the privacy layer.
 */
import { BREAKDOWN_DIMENSIONS } from '../../graph/index.ts';
import type { MeasuredBucket, Privacy, ProtectedBuckets } from '../privacy/index.ts';

export interface Dimension {
  /** Name shown in the response. */
  name: string;
  /** The column grouped by (a group_by); the default breakdowns are decoded from `breakdown_key`. */
  column?: string;
  /** Columns of the scanned table read. */
  columns: string[];
  /** Show only the largest N buckets plus `other`. */
  top?: number;
}

export const DEFAULT_BREAKDOWNS: readonly Dimension[] = BREAKDOWN_DIMENSIONS.map((d) => ({
  name: d.name,
  columns: ['breakdown_key'],
  ...(d.name === 'state' ? { top: 10 } : {}),
}));

/** Most buckets a group_by answer lists; the rest are reported in `truncated_groups`. */
export const MAX_GROUPS = 1000;

/** One dimension's measured buckets as shown: through the privacy layer, then at most MAX_GROUPS of them. */
export function protectDimension(
  privacy: Privacy,
  dim: Dimension,
  buckets: readonly MeasuredBucket[],
): ProtectedBuckets & { truncated_groups?: number } {
  const kept = privacy.protectMeasuredGroups(buckets, dim.top);
  if (dim.top !== undefined) return kept;
  if (kept.groups.length > MAX_GROUPS) {
    const truncated = kept.groups.length - MAX_GROUPS;
    kept.groups = kept.groups.slice(0, MAX_GROUPS);
    return { ...kept, truncated_groups: truncated };
  }
  return kept;
}

/** A group_by dimension for a plain catalog column. */
export function columnDimension(name: string, column: string): Dimension {
  return { name, column, columns: [column] };
}
