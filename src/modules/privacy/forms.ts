/**
 * The removable items of a question, for low-effect detection (docs/decisions/052-privacy-by-member-set.md):
 * - raw filters, as OR branches of AND-ed conditions (the disjunctive form): each condition of a branch
 *   of two or more conditions (removing it widens the branch) and, with two or more branches, each
 *   branch (removing it narrows the set). A lone condition of a lone branch is never removed: the
 *   question without it is everyone, whose difference from the question is never a few people
 *   except for a question of (nearly) everyone;
 * - a composition of segments: each included segment when there are two or more (union: removing
 *   narrows; intersection: widens), each excluded segment, and inside each filter segment its own
 *   conditions and branches as above. A change inside a capped segment (record_limit) changes which
 *   persons the cap keeps, so its effect is measured as a symmetric difference.
 * `withoutItems` gives the question with some items removed (the question that is answered when they
 * have low effect).
 */
import { toDisjunctiveBranches, type FilterCondition, type FilterGroup } from '../../graph/index.ts';
import type { SetForm } from '../../graph/index.ts';
import { conditionKey } from './canonical.ts';
import type { Composition, MembershipQuery, SegmentMembership } from '../../graph/index.ts';

/** Where an item sits: `m` is the member index in the composition's include + exclude list (-1: raw filters). */
export type Item =
  | { kind: 'condition'; m: number; branch: number; condition: number }
  | { kind: 'branch'; m: number; branch: number }
  | { kind: 'member'; m: number };

type Branches = FilterCondition[][];

/** OR branches of AND-ed conditions. */
export function branchesOf(groups: readonly FilterGroup[]): Branches {
  return toDisjunctiveBranches(groups).map((b) => b.flatMap((g) => g.filters));
}

/** Filter groups of branches: one group per branch, ORed. No branch: nobody; an empty branch: everyone. */
export function groupsOf(branches: Branches): FilterGroup[] | null {
  if (branches.length === 0) return null;
  if (branches.some((b) => b.length === 0)) return [];
  return branches.map((filters, i) => ({ id: `b${i}`, combinator: i === 0 ? 'AND' : 'OR', filters }));
}

const NOBODY: MembershipQuery = { kind: 'composition', composition: { include: [], exclude: [], setLogic: 'union' } };

function filterItems(branches: Branches, m: number): Item[] {
  const out: Item[] = [];
  branches.forEach((b, branch) => {
    if (b.length >= 2) b.forEach((_, condition) => out.push({ kind: 'condition', m, branch, condition }));
  });
  if (branches.length >= 2) branches.forEach((_, branch) => out.push({ kind: 'branch', m, branch }));
  return out;
}

const members = (c: Composition) => [...c.include, ...c.exclude];

/** The items of a question, each with whether its effect must be counted as a symmetric difference. */
export function itemsOf(query: MembershipQuery): { item: Item; symmetric: boolean }[] {
  if (query.kind === 'filters') return filterItems(branchesOf(query.groups), -1).map((item) => ({ item, symmetric: false }));
  const c = query.composition;
  const out: { item: Item; symmetric: boolean }[] = [];
  members(c).forEach((s, m) => {
    const included = m < c.include.length;
    if (!included || c.include.length >= 2) out.push({ item: { kind: 'member', m }, symmetric: false });
    if (s.kind === 'filter') for (const item of filterItems(branchesOf(s.groups), m)) out.push({ item, symmetric: s.recordLimit !== null });
  });
  return out;
}

/** Branches with the given items (all of one filter) removed; null when none is left (nobody). */
function removeFromBranches(branches: Branches, items: readonly Item[]): Branches {
  const dropBranch = new Set(items.filter((i) => i.kind === 'branch').map((i) => (i as { branch: number }).branch));
  const dropCond = new Set(
    items.filter((i) => i.kind === 'condition').map((i) => `${(i as { branch: number }).branch}:${(i as { condition: number }).condition}`),
  );
  return branches
    .map((b, bi) => (dropBranch.has(bi) ? null : b.filter((_, ci) => !dropCond.has(`${bi}:${ci}`))))
    .filter((b): b is FilterCondition[] => b !== null);
}

/** A segment membership with its filter items removed; null: nobody is left in it. */
function memberWithout(s: SegmentMembership, items: readonly Item[]): SegmentMembership | null {
  if (s.kind !== 'filter' || items.length === 0) return s;
  const groups = groupsOf(removeFromBranches(branchesOf(s.groups), items));
  return groups === null ? null : { ...s, groups };
}

/** The question with the given items removed. */
export function withoutItems(query: MembershipQuery, items: readonly Item[]): MembershipQuery {
  if (items.length === 0) return query;
  if (query.kind === 'filters') {
    const groups = groupsOf(removeFromBranches(branchesOf(query.groups), items));
    return groups === null ? NOBODY : { kind: 'filters', groups };
  }
  const c = query.composition;
  const dropped = new Set(items.filter((i) => i.kind === 'member').map((i) => i.m));
  const rebuilt = members(c).map((s, m) =>
    dropped.has(m)
      ? undefined
      : memberWithout(
          s,
          items.filter((i) => i.kind !== 'member' && i.m === m),
        ),
  );
  const include = rebuilt.slice(0, c.include.length);
  const exclude = rebuilt.slice(c.include.length);
  // A member left with nobody: in a union or an exclusion it adds nothing; in an intersection nobody is left.
  if (c.setLogic === 'intersection' && include.some((s) => s === null)) return NOBODY;
  const keep = (xs: (SegmentMembership | null | undefined)[]) => xs.filter((s): s is SegmentMembership => !!s);
  return { kind: 'composition', composition: { include: keep(include), exclude: keep(exclude), setLogic: c.setLogic } };
}

/** Groups without repeated conditions in a branch or repeated branches (each copy alone would be of no effect). */
function deduplicated(groups: readonly FilterGroup[]): FilterGroup[] {
  const seen = new Set<string>();
  const branches: Branches = [];
  for (const b of branchesOf(groups)) {
    const unique = [...new Map(b.map((c) => [conditionKey(c), c])).values()];
    const key = JSON.stringify(unique.map(conditionKey).sort());
    if (!seen.has(key)) branches.push(unique);
    seen.add(key);
  }
  return groupsOf(branches) ?? [...groups];
}

function deduplicatedQuery(query: MembershipQuery): MembershipQuery {
  if (query.kind === 'filters') return { kind: 'filters', groups: deduplicated(query.groups) };
  const member = (s: SegmentMembership): SegmentMembership => (s.kind === 'filter' ? { ...s, groups: deduplicated(s.groups) } : s);
  const c = query.composition;
  return { kind: 'composition', composition: { ...c, include: c.include.map(member), exclude: c.exclude.map(member) } };
}

/** The question (repeated conditions and branches dropped), form 0, and one form per item (the question without it). */
export function formsOf(raw: MembershipQuery): { query: MembershipQuery; forms: SetForm[]; items: Item[] } {
  const query = deduplicatedQuery(raw);
  const items = itemsOf(query);
  return {
    query,
    forms: [{ query }, ...items.map(({ item, symmetric }) => ({ query: withoutItems(query, [item]), symmetric }))],
    items: items.map((i) => i.item),
  };
}
