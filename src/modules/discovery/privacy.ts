/**
 * The privacy floor (spec 8: 50 records; docs/decisions/003-privacy-floor.md).
 * - A total below the floor is refused: 422 AGGREGATION_FLOOR_NOT_MET.
 * - A group or breakdown bucket below the floor is removed from the list and counted in
 *   `suppressed_groups`; its value is not shown either, because the bare existence of a rare value
 *   (one person aged 97 in a ZIP) is itself a disclosure.
 * - The differencing guard refuses a count that differs from a *different* recent count of the same
 *   organization by 1..floor-1 records: subtracting two such overlapping counts would reveal a set
 *   smaller than the floor. Repeating the same query is always allowed.
 */
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';

export interface Bucket {
  group_value: string | number | boolean | null;
  count: number;
}

export interface SuppressedBuckets {
  groups: Bucket[];
  suppressed_groups: number;
}

export function floorNotMet(floor: number, what = 'The result'): AppError {
  return new AppError('AGGREGATION_FLOOR_NOT_MET', 422, `${what} is below the privacy minimum of ${floor} records, so it is not shown.`, {
    details: { privacy_floor: floor },
    nextStep: 'Broaden the filters (wider geography, fewer conditions) so at least the minimum number of people match.',
  });
}

export function assertFloor(count: number, floor: number): void {
  if (count < floor) throw floorNotMet(floor);
}

/** Keeps buckets at or above the floor (largest first); the rest are only counted. */
export function suppressSmall(buckets: Bucket[], floor: number): SuppressedBuckets {
  const groups = buckets.filter((b) => b.count >= floor).sort((a, b) => b.count - a.count || String(a.group_value).localeCompare(String(b.group_value)));
  return { groups, suppressed_groups: buckets.length - groups.length };
}

/**
 * Top-N buckets plus one `other` bucket holding the rest (suppressed too if it is below the floor).
 * Used for high-cardinality breakdowns such as state.
 */
export function topWithOther(buckets: Bucket[], n: number, floor: number): SuppressedBuckets {
  const sorted = [...buckets].sort((a, b) => b.count - a.count);
  const top = sorted.slice(0, n);
  const rest = sorted.slice(n);
  const kept = suppressSmall(top, floor);
  if (rest.length > 0) {
    const other = rest.reduce((sum, b) => sum + b.count, 0);
    if (other >= floor) kept.groups.push({ group_value: 'other', count: other });
    else kept.suppressed_groups += 1;
  }
  return kept;
}

export interface DifferencingGuard {
  /** Throws 422 when `count` could be subtracted from a recent different count to reveal a small set. */
  check(orgId: string, queryKey: string, count: number): void;
}

/**
 * In-process memory of recent counts per organization (bounded). Best effort: each API process keeps
 * its own window, which the decision record names as a known limit.
 */
export function createDifferencingGuard(deps: { clock: Clock; floor: number; windowSeconds: number; maxPerOrg?: number }): DifferencingGuard {
  const { clock, floor, windowSeconds } = deps;
  const maxPerOrg = deps.maxPerOrg ?? 200;
  const recent = new Map<string, { key: string; count: number; at: number }[]>();
  return {
    check(orgId, queryKey, count) {
      if (windowSeconds <= 0) return;
      const now = clock.now().getTime();
      const since = now - windowSeconds * 1000;
      const list = (recent.get(orgId) ?? []).filter((e) => e.at >= since);
      const clash = list.find((e) => e.key !== queryKey && e.count !== count && Math.abs(e.count - count) < floor);
      if (clash) {
        recent.set(orgId, list);
        throw new AppError('AGGREGATION_FLOOR_NOT_MET', 422,
          `This count differs from another count you ran in the last ${Math.round(windowSeconds / 60)} minutes by fewer than ${floor} records; `
          + 'comparing the two would single out a group below the privacy minimum.', {
            details: { privacy_floor: floor, reason: 'differencing' },
            nextStep: 'Change the filters by more than a handful of people, or wait for the window to pass.',
          });
      }
      list.push({ key: queryKey, count, at: now });
      if (list.length > maxPerOrg) list.splice(0, list.length - maxPerOrg);
      recent.set(orgId, list);
    },
  };
}
