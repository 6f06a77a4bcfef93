/**
 * Group precedence. Each group after the first is joined to the previous one by its combinator,
 * and AND binds tighter than OR (ARCHITECTURE.md, "Decisions where the contract is unclear"):
 * g1 AND g2 OR g3 is (g1 AND g2) OR g3. The disjuncts of that form are the "OR branches" the
 * record_limit rule checks one by one.
 */
import type { FilterGroup } from './types.ts';

/** The OR branches, each a list of groups that are ANDed together. Empty input gives no branches. */
export function toDisjunctiveBranches<G extends Pick<FilterGroup, 'combinator'>>(groups: readonly G[]): G[][] {
  const branches: G[][] = [];
  groups.forEach((g, i) => {
    // The combinator of the first group is ignored (spec §2).
    if (i === 0 || g.combinator === 'OR') branches.push([g]);
    else branches[branches.length - 1]!.push(g);
  });
  return branches;
}
