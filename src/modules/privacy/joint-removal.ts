/**
 * What is removed together (docs/decisions/052-privacy-by-member-set.md, decision 2). Items are found of
 * low effect one at a time, but removing several at once can change the set by many persons: the
 * conditions of `zip AND age AND gender AND attribute`, each of low effect beside a broad other branch,
 * together turn one person into a whole ZIP. So in each bucket the candidates of one group (the
 * conditions of one branch, the branches of one filter, the segments of a composition) are tried in
 * order (set-stats.ts `removedItems`) and each is removed only if the persons changed by it *and* by the
 * group's items already removed, together, stay below the low-effect threshold (seeded by exactly
 * those persons). Groups are decided apart: the answered set differs from the asked by at most 3
 * persons per group.
 * The sets this needs are known from the measure (masks, the bucket's logic, single forms) or counted:
 * one statement for the chains of every group assuming each candidate is removed, one more after a
 * refusal (rare: it takes items of low effect alone and not together), and one for the final set of a
 * bucket where several groups remove something.
 */
import type { MembershipQuery } from '../../graph/index.ts';
import { patternSets, type FormsScan, type Pattern } from './by-forms.ts';
import type { Item } from './forms.ts';
import { lowEffectThreshold } from './noise.ts';
import { NOBODY, xorHex, type BucketStats, type FormStat, type SetCount } from './set-stats.ts';

/** The question's set without some items in a bucket, and what removing them changes (the symmetric difference). */
export interface Removal {
  set: FormStat;
  diff: SetCount;
}
export type KnownRemoval = (k: string, removed: readonly number[]) => Removal | undefined;

export interface JointRemovals {
  /** The items removed in each bucket, in index order. */
  removedOf: Map<string, number[]>;
  /** The set shown in a bucket: the question without its removed items. */
  setOf: (k: string) => FormStat;
}

const keyOf = (removed: readonly number[]) => [...removed].sort((a, b) => a - b).join(',');

/** Removing conditions of raw filters only widens the set, removing branches only narrows it: the change is then a difference of counts. */
function monotone(items: readonly Item[], removed: readonly number[]): boolean {
  const kinds = new Set(removed.map((i) => items[i]!).map((it) => (it.m === -1 ? it.kind : 'other')));
  return kinds.size === 1 && !kinds.has('other');
}

/** Where an item sits: the conditions of one branch, the branches of one filter, the segments of a composition. */
const groupOf = (it: Item) => (it.kind === 'condition' ? `c${it.m}:${it.branch}` : it.kind === 'branch' ? `b${it.m}` : 'm');

interface Walk {
  candidates: number[];
  at: number;
  accepted: number[];
}

export async function jointRemovals(
  secret: string,
  s: FormsScan,
  query: MembershipQuery,
  items: readonly Item[],
  buckets: ReadonlyMap<string, BucketStats>,
  candidates: ReadonlyMap<string, number[]>,
  known: KnownRemoval,
): Promise<JointRemovals> {
  const counted = new Map<string, { symmetric: boolean; row: (k: string) => (FormStat & { e: number }) | undefined }>();
  const removalOf = (k: string, p: readonly number[]): Removal | undefined => {
    const hit = known(k, p);
    if (hit) return hit;
    const c = counted.get(keyOf(p));
    if (!c) return undefined;
    const q = buckets.get(k)!.q;
    const row = c.row(k);
    const set = row ? { n: row.n, h: row.h, m: row.m } : { ...NOBODY, m: s.o.matched ? { ...NOBODY } : null };
    // A symmetric pattern's bucket without a row has nobody in it or in the question.
    const n = c.symmetric ? (row?.e ?? q.n) : Math.abs(set.n - q.n);
    return { set, diff: { n, h: xorHex(q.h, set.h) } };
  };
  // A branch without any of its conditions is everyone: never a few persons (and not in the masks).
  const sizes = new Map<string, number>();
  for (const it of items) sizes.set(groupOf(it), (sizes.get(groupOf(it)) ?? 0) + 1);
  const empties = (p: readonly number[]) => items[p[0]!]!.kind === 'condition' && p.length === sizes.get(groupOf(items[p[0]!]!));
  /** Tries a group's candidates in order while their removals are known; false when one must be counted first. */
  const advance = (k: string, w: Walk): boolean => {
    for (; w.at < w.candidates.length; w.at++) {
      const p = [...w.accepted, w.candidates[w.at]!];
      if (empties(p)) continue;
      const r = removalOf(k, p);
      if (!r) return false;
      if (r.diff.n < lowEffectThreshold(secret, r.diff.h)) w.accepted = p;
    }
    return true;
  };
  const removed = (k: string) => walks.get(k)!.flatMap((w) => w.accepted);

  // One walk per group of each bucket: a group's decisions never weigh another group's removals, so a
  // one-person branch removed (the target's, or not) cannot change what is decided about the conditions
  // of another branch.
  const walks = new Map<string, Walk[]>(
    [...buckets.keys()].map((k) => {
      const groups = new Map<string, number[]>();
      for (const i of candidates.get(k)!) groups.set(groupOf(items[i]!), [...(groups.get(groupOf(items[i]!)) ?? []), i]);
      return [k, [...groups.values()].map((c) => ({ candidates: c, at: 0, accepted: [] }))];
    }),
  );
  for (;;) {
    const missing = new Map<string, Pattern>();
    const need = (p: readonly number[]) => missing.set(keyOf(p), { key: keyOf(p), symmetric: !monotone(items, p) });
    for (const [k, ws] of walks) {
      let done = true;
      for (const w of ws) {
        if (advance(k, w)) continue;
        done = false;
        // The rest of this group's chain, as if every candidate left were removed.
        let p = w.accepted;
        for (const i of w.candidates.slice(w.at)) {
          p = [...p, i];
          if (!empties(p) && !removalOf(k, p)) need(p);
        }
      }
      // Every group decided: the set of the question without all that they remove.
      if (done && !removalOf(k, removed(k))) need(removed(k));
    }
    if (missing.size === 0) break;
    const found = await patternSets(s, query, items, [...missing.values()]);
    for (const p of missing.values()) counted.set(p.key, { symmetric: p.symmetric, row: (k) => found(k, p.key) });
  }
  return {
    removedOf: new Map([...walks.keys()].map((k) => [k, removed(k).sort((x, y) => x - y)])),
    setOf: (k) => removalOf(k, removed(k))!.set,
  };
}
