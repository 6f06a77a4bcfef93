/**
 * The record_limit geography rule (spec §4.3, §8): a capped filter segment must narrow every OR
 * branch to at most 100 ZIP3 regions with a State, City or ZIP filter. Pure: the mapping from
 * state / city / ZIP5 values to ZIP3 regions lives in the warehouse and is injected.
 */
import { toDisjunctiveBranches } from './branches.ts';
import { trimWs } from './text.ts';
import type { FilterGroup } from './types.ts';

export const MAX_ZIP3_PER_BRANCH = 100;
export const GEOGRAPHY_FIELDS = ['state', 'city', 'zip5', 'zip3'] as const;
export type GeographyField = (typeof GEOGRAPHY_FIELDS)[number];

/** One narrowing condition: `field = v` or `field IN (...)`, with the comparison options it used. */
export interface GeographyCondition {
  group_id: string;
  field: GeographyField;
  values: string[];
  case_insensitive: boolean;
  trim_whitespace: boolean;
}

export interface BranchGeography {
  /** Index of the OR branch, in order of appearance. */
  branch: number;
  group_ids: string[];
  /** Empty when the branch has no narrowing geography. */
  conditions: GeographyCondition[];
}

/**
 * ZIP3 regions selected by `field` equal to any of `values` under the given comparison. Called for
 * state, city and zip5; zip3 values are taken as they are.
 */
export type Zip3Resolver = (
  field: Exclude<GeographyField, 'zip3'>,
  values: readonly string[],
  opts: { case_insensitive: boolean; trim_whitespace: boolean },
) => Promise<Iterable<string>>;

export interface BranchFailure {
  branch: number;
  group_ids: string[];
  reason: 'NO_GEOGRAPHY' | 'TOO_MANY_ZIP3';
  /** Regions the branch resolves to, when it has geography. */
  zip3_count?: number;
  message: string;
}

export type GeographyCheck = { ok: true } | { ok: false; branches: BranchFailure[] };

/**
 * The narrowing conditions of each OR branch. Only equality (`=`, `IN`) counts: `!=`, `NOT IN` and
 * LIKE do not bound a region set. Conditions are ANDed within a branch, so any group of the branch
 * can contribute.
 */
export function geographyNarrowing(groups: readonly FilterGroup[]): BranchGeography[] {
  return toDisjunctiveBranches(groups).map((branch, i) => ({
    branch: i,
    group_ids: branch.map((g) => g.id),
    conditions: branch.flatMap((g) =>
      g.filters.flatMap((c): GeographyCondition[] => {
        if (!(GEOGRAPHY_FIELDS as readonly string[]).includes(c.field)) return [];
        if (c.op !== '=' && c.op !== 'IN') return [];
        const raw = Array.isArray(c.value) ? c.value : [c.value];
        return [
          {
            group_id: g.id,
            field: c.field as GeographyField,
            values: raw.map((v) => String(v)),
            case_insensitive: c.text_comparison === 'case_insensitive',
            trim_whitespace: c.trim_whitespace === true,
          },
        ];
      }),
    ),
  }));
}

/**
 * Checks every branch; a branch with several geography conditions is narrowed to the intersection
 * of their region sets (state = CA AND city = SPRINGFIELD is only California's Springfield).
 */
export async function checkRecordLimitGeography(groups: readonly FilterGroup[], resolve: Zip3Resolver): Promise<GeographyCheck> {
  const failures: BranchFailure[] = [];
  for (const b of geographyNarrowing(groups)) {
    if (b.conditions.length === 0) {
      failures.push({
        branch: b.branch,
        group_ids: b.group_ids,
        reason: 'NO_GEOGRAPHY',
        message: `OR branch ${b.branch + 1} (groups ${b.group_ids.join(', ')}) has no State, City or ZIP filter (=, IN); record_limit needs one in every branch.`,
      });
      continue;
    }
    let regions: Set<string> | undefined;
    for (const c of b.conditions) {
      const set = new Set(
        c.field === 'zip3'
          ? c.values.map((v) => (c.trim_whitespace ? trimWs(v) : v))
          : await resolve(c.field, c.values, { case_insensitive: c.case_insensitive, trim_whitespace: c.trim_whitespace }),
      );
      regions = regions ? new Set([...regions].filter((r) => set.has(r))) : set;
    }
    const count = regions!.size;
    if (count > MAX_ZIP3_PER_BRANCH) {
      failures.push({
        branch: b.branch,
        group_ids: b.group_ids,
        reason: 'TOO_MANY_ZIP3',
        zip3_count: count,
        message: `OR branch ${b.branch + 1} (groups ${b.group_ids.join(', ')}) covers ${count} ZIP3 regions; record_limit allows at most ${MAX_ZIP3_PER_BRANCH}. Narrow it with a State, City or ZIP filter.`,
      });
    }
  }
  return failures.length ? { ok: false, branches: failures } : { ok: true };
}
