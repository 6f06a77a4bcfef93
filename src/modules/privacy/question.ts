/**
 * A question in privacy terms: its canonical key (the same question however it is phrased: condition
 * order, group order, duplicate conditions, IN-list order, equivalent bounds, case; canonical.ts) and the names of its noise layers (one per
 * distinct condition, one per materialized member set, one for the question itself).
 */
import { toDisjunctiveBranches, type FilterGroup } from '../../graph/index.ts';
import { canonicalBranch } from './canonical.ts';
import type { Composition, MembershipQuery, SegmentMembership } from '../../graph/index.ts';

export interface Question {
  /** Canonical identity: equal for equal questions. */
  key: string;
  /** Noise layer names (`c:` per condition, `s:` per member set, `q:` for the question). */
  layers: string[];
}

/** OR branches of AND-ed conditions, each in canonical form (canonical.ts), the branches sorted and deduplicated. */
function canonicalGroups(groups: readonly FilterGroup[]): string[][] {
  const branches = toDisjunctiveBranches(groups).map((b) => canonicalBranch(b.flatMap((g) => g.filters)));
  const seen = new Map(branches.map((b) => [JSON.stringify(b), b]));
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}

/** One layer per distinct canonical condition of any branch (so a rephrased condition names the same layer). */
function conditionLayers(groups: readonly FilterGroup[]): string[] {
  return [...new Set(canonicalGroups(groups).flat())].map((k) => `c:${k}`);
}

function memberKey(m: SegmentMembership): unknown {
  // A member set is named by its file (a duplicate or an attached run shares it): the same set, the same noise.
  if (m.kind === 'members') return ['members', m.parquetPath ?? m.segmentId];
  return ['filter', canonicalGroups(m.groups), m.recordLimit, m.recordLimit === null ? null : m.subsetSeed];
}

function plainFilters(c: Composition): FilterGroup[] | null {
  const only = c.include[0];
  if (c.include.length === 1 && c.exclude.length === 0 && only?.kind === 'filter' && only.recordLimit === null) return only.groups;
  return null;
}

function fromFilters(groups: readonly FilterGroup[]): Question {
  const key = JSON.stringify(['filters', canonicalGroups(groups)]);
  return { key, layers: [...new Set([...conditionLayers(groups), `q:${key}`])] };
}

/** The question a membership query asks. One uncapped filter segment asks the same as its filters. */
export function questionOf(query: MembershipQuery): Question {
  if (query.kind === 'filters') return fromFilters(query.groups);
  const c = query.composition;
  const filters = plainFilters(c);
  if (filters) return fromFilters(filters);
  const sortKeys = (ms: SegmentMembership[]) => ms.map((m) => JSON.stringify(memberKey(m))).sort();
  const key = JSON.stringify(['composition', c.setLogic, sortKeys(c.include), sortKeys(c.exclude)]);
  const layers: string[] = [];
  for (const m of [...c.include, ...c.exclude]) {
    if (m.kind === 'filter') layers.push(...conditionLayers(m.groups));
    else layers.push(`s:${JSON.stringify(memberKey(m))}`);
  }
  layers.push(`q:${key}`);
  return { key, layers: [...new Set(layers)] };
}

/**
 * The static layers of the question answered (after low-effect removal): one per distinct canonical
 * condition of any filter, one per materialized member file. No layer names the question as a whole:
 * the set's own (dynamic) layer does that, whatever the wording (docs/decisions/052).
 */
export function setLayers(query: MembershipQuery): string[] {
  if (query.kind === 'filters') return conditionLayers(query.groups);
  const layers: string[] = [];
  for (const m of [...query.composition.include, ...query.composition.exclude]) {
    if (m.kind === 'filter') layers.push(...conditionLayers(m.groups));
    else layers.push(`s:${JSON.stringify(memberKey(m))}`);
  }
  return [...new Set(layers)];
}

/** A question named by the caller (a quote, a model answer): its layers are the given condition keys and the key itself. */
export function namedQuestion(key: string, conditions: readonly string[] = []): Question {
  return { key, layers: [...new Set([...conditions.map((c) => `c:${c}`), `q:${key}`])] };
}

/**
 * The parts of a question for lookup: each OR branch of raw filters on its own (a row may come only
 * from a part that meets the floor by itself); any other question is one part.
 */
export function lookupParts(query: MembershipQuery): MembershipQuery[] {
  if (query.kind !== 'filters') return [query];
  const branches = toDisjunctiveBranches(query.groups);
  if (branches.length <= 1) return [query];
  return branches.map((groups) => ({ kind: 'filters', groups }));
}

/** Raw filters joining the given parts (each an AND of groups) by OR. */
export function joinParts(parts: readonly MembershipQuery[]): MembershipQuery {
  if (parts.length === 1) return parts[0]!;
  const groups: FilterGroup[] = [];
  for (const p of parts) {
    if (p.kind !== 'filters') throw new Error('only raw filter parts can be joined');
    p.groups.forEach((g, i) => groups.push({ ...g, combinator: i === 0 ? 'OR' : 'AND' }));
  }
  return { kind: 'filters', groups };
}
