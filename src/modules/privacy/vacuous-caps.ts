/**
 * A capped filter segment whose `record_limit` is at least the number of persons any of its conditions
 * selects holds, in every form the measure counts (the segment without a condition or branch), exactly
 * the uncapped segment: the cap keeps everyone. So it is measured uncapped (no ranked subset per form,
 * and effects that are plain differences), and the question answered keeps its cap. The answer is the
 * same either way: noise follows the member set and the conditions' layers, not the cap (decision 052).
 */
import { membershipSql } from '../../graph/index.ts';
import type { MembershipQuery, SegmentMembership } from '../../graph/index.ts';
import { branchesOf, groupsOf } from './forms.ts';
import type { MeasureOptions, Run } from './set-stats.ts';

type FilterMember = Extract<SegmentMembership, { kind: 'filter' }>;

/** Persons satisfying any condition of the member's filter: a superset of every form of it. */
async function widest(run: Run, m: FilterMember, o: MeasureOptions): Promise<number> {
  const groups = groupsOf(
    branchesOf(m.groups)
      .flat()
      .map((c) => [c]),
  )!;
  const sql = membershipSql({ kind: 'filters', groups }, { catalog: o.catalog, personsTable: o.personsTable });
  const [row] = await run(sql.count, sql.params);
  return Number(row?.n ?? 0);
}

export async function uncapVacuous(
  run: Run,
  query: MembershipQuery,
  o: MeasureOptions,
): Promise<{ query: MembershipQuery; restore: (answered: MembershipQuery) => MembershipQuery; statements: number }> {
  const same = { query, restore: (q: MembershipQuery) => q, statements: 0 };
  if (query.kind !== 'composition') return same;
  const c = query.composition;
  const capped = [...c.include, ...c.exclude].filter(
    (m): m is FilterMember => m.kind === 'filter' && m.recordLimit !== null && m.groups.length > 0,
  );
  if (capped.length === 0) return same;
  const vacuous = new Map<string, FilterMember>();
  for (const m of capped) if ((await widest(run, m, o)) <= m.recordLimit!) vacuous.set(m.segmentId, m);
  if (vacuous.size === 0) return { ...same, statements: capped.length };
  const uncap = (m: SegmentMembership): SegmentMembership =>
    m.kind === 'filter' && vacuous.has(m.segmentId) ? { ...m, recordLimit: null } : m;
  const recap = (m: SegmentMembership): SegmentMembership => {
    const original = m.kind === 'filter' ? vacuous.get(m.segmentId) : undefined;
    return original && m.kind === 'filter' ? { ...m, recordLimit: original.recordLimit, subsetSeed: original.subsetSeed } : m;
  };
  const map = (q: MembershipQuery, f: (m: SegmentMembership) => SegmentMembership): MembershipQuery =>
    q.kind === 'composition'
      ? {
          kind: 'composition',
          composition: { ...q.composition, include: q.composition.include.map(f), exclude: q.composition.exclude.map(f) },
        }
      : q;
  return { query: map(query, uncap), restore: (q) => map(q, recap), statements: capped.length };
}
