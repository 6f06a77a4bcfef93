/**
 * Measuring a question of raw filters by condition masks (graph/membership/masks.ts), at about the cost
 * of one count:
 * 1. one statement: the masks of the rows satisfying any of its conditions, so that every form and every
 *    removal pattern is a union of masks, per bucket: nothing more to read. On a table above SAMPLE_ROWS
 *    persons, the question's own set per bucket and the masks of a sample only; a grouping then reads
 *    only the buckets where the question has someone: in another, what is removed changes fewer than
 *    LOW_EFFECT + 1 persons together (joint-removal.ts), so the bucket is below `minBucket`
 *    (set-stats.ts) whatever is removed, and is not shown in any case;
 * 2. with a sample, each (bucket, item) is settled without reading the table where possible: an item
 *    that changes nobody by the bucket's own logic (bucket-logic.ts: `state = 'TX'` inside the TX
 *    bucket) has no effect; one that changes at least a few sampled persons is large (a sample is a
 *    subset: its counts are lower bounds). The rest, usually none or one item, are counted exactly in
 *    a second statement, as the persons each such item adds or removes;
 * 3. a bucket where several items are removed at once is settled by the bucket's logic or, rarely, by
 *    one more statement (joint-removal.ts).
 * The result is the same Measured as by-forms.ts gives, item for item (a test compares them).
 */
import { maskStatsSql, MAX_MASK_CONDITIONS } from '../../graph/index.ts';
import { setStatsSql } from '../../graph/index.ts';
import type { FilterCondition, FilterGroup } from '../../graph/index.ts';
import type { MembershipQuery, SegmentMembership } from '../../graph/index.ts';
import { bucketFact, reducedKey, truthIn, type Truth } from './bucket-logic.ts';
import type { BranchTruths } from './location-facts.ts';
import { branchesOf, groupsOf, withoutItems, type Item } from './forms.ts';
import { LOW_EFFECT } from './noise.ts';
import {
  bucketOfRow,
  hex,
  MAX_MIN_BUCKET,
  minBucket,
  NOBODY,
  xorHex,
  type BucketStats,
  type Effect,
  type FormStat,
  type SetCount,
} from './set-stats.ts';
import type { FormsScan } from './by-forms.ts';
import { conditionKey } from './canonical.ts';

/** Above this many persons, low-effect detection reads a sample of about this many rows first. */
export const SAMPLE_ROWS = 100_000;

/** A question as OR of AND branches over condition bits. */
type Shape = bigint[];
const satisfies = (mask: bigint, shape: Shape) => shape.some((b) => (mask & b) === b);

interface MaskBucket {
  dimension: string | null;
  value: BucketStats['value'];
  q: SetCount | null;
  masks: Map<bigint, MaskStat>;
}

/** Whether a question of raw filters can be measured by masks. */
export function maskable(query: MembershipQuery): query is { kind: 'filters'; groups: FilterGroup[] } {
  if (query.kind !== 'filters') return false;
  const keys = new Set(branchesOf(query.groups).flat().map(conditionKey));
  return keys.size > 0 && keys.size <= MAX_MASK_CONDITIONS;
}

/** Persons of a (bucket, mask): their count and set hash, kept as a number to XOR without parsing. */
interface MaskStat {
  n: number;
  h: bigint;
}

function sumOver(masks: ReadonlyMap<bigint, MaskStat>, keep: (m: bigint) => boolean): SetCount {
  let n = 0;
  let h = 0n;
  for (const [m, s] of masks)
    if (keep(m)) {
      n += s.n;
      h ^= s.h;
    }
  return { n, h: h.toString(16) };
}

export interface MaskMeasure {
  buckets: Map<string, BucketStats>;
  /** The set of the question without the given items in a bucket and what that changes, when known without another statement. */
  known: (k: string, removed: readonly number[]) => { set: SetCount; diff: SetCount } | undefined;
}

export async function statsByMasks(
  s: FormsScan,
  query: { kind: 'filters'; groups: FilterGroup[] },
  items: readonly Item[],
  impliedOf: () => Promise<BranchTruths | null> = async () => null,
): Promise<MaskMeasure> {
  const o = s.o;
  const branches = branchesOf(query.groups);
  // One bit per distinct condition; bits[branch][condition] (canonical keys computed once).
  const index = new Map<string, number>();
  const conditions: FilterCondition[] = [];
  const bits = branches.map((b) =>
    b.map((c) => {
      const key = conditionKey(c);
      if (!index.has(key)) index.set(key, conditions.push(c) - 1);
      return 1n << BigInt(index.get(key)!);
    }),
  );
  const shapeOf = (removed: readonly number[]): Shape => {
    const gone = removed.map((i) => items[i]!);
    return branches.flatMap((b, bi) =>
      gone.some((it) => it.kind === 'branch' && it.branch === bi)
        ? []
        : [
            b.reduce(
              (acc, _, ci) =>
                gone.some((it) => it.kind === 'condition' && it.branch === bi && it.condition === ci) ? acc : acc | bits[bi]![ci]!,
              0n,
            ),
          ],
    );
  };
  const persons = o.persons ?? 0;
  const sampleRows = o.sampleRows ?? SAMPLE_ROWS;
  // A grouping from a sample reads only the buckets where the question has someone; in the others what
  // is removed changes fewer than LOW_EFFECT + 1 persons together, below the smallest bucket shown (minBucket).
  const exact = persons <= sampleRows || ((o.dim !== undefined || o.breakdown === true) && minBucket(query) > MAX_MIN_BUCKET);
  const sql = maskStatsSql({
    catalog: o.catalog,
    personsTable: o.personsTable,
    question: exact ? null : query,
    conditions,
    samplePercent: exact ? 100 : (100 * sampleRows) / persons,
    dimColumn: o.dim?.column,
    breakdown: o.breakdown,
  });
  s.count();
  const raw = new Map<string, MaskBucket>([['', { dimension: null, value: null, q: exact ? null : { ...NOBODY }, masks: new Map() }]]);
  for (const row of await s.run(sql.sql, sql.params)) {
    const { key, dimension, value } = bucketOfRow(row, o);
    if (!raw.has(key)) raw.set(key, { dimension, value, q: exact ? null : { ...NOBODY }, masks: new Map() });
    const b = raw.get(key)!;
    const n = Number(row.n ?? 0);
    if (Number(row.__part) === 0) b.q = { n, h: hex(row.h) };
    else b.masks.set(BigInt(row.__mask as bigint), { n, h: row.h === null || row.h === undefined ? 0n : BigInt(row.h as bigint) });
  }

  const q = shapeOf([]);
  const forms = items.map((_, i) => shapeOf([i]));
  const factOf = (b: MaskBucket) => (b.dimension === null ? null : bucketFact(b.dimension, b.value, o.dim?.field));
  // From a sample, what the release's geography implies settles more items without reading (location-facts.ts).
  const implied = exact ? null : await impliedOf();
  // The bucket's logic: the question without some items selects the same persons there; and the items
  // whose removal changes nothing there whatever else is removed (a condition true for everyone in the
  // bucket, a branch with a condition false for everyone).
  const sameInBucket = new Map<string, (removed: readonly number[]) => boolean>();
  const noOp = new Map<string, (i: number) => boolean>();
  const buckets = new Map<string, BucketStats>();
  const unsettled = new Map<number, string[]>();
  for (const [k, b] of raw) {
    if (!exact && k !== '' && b.q!.n === 0) continue;
    const fact = factOf(b);
    const truth = truthIn(o.catalog, fact);
    const sharpen = implied ? (br: readonly FilterCondition[], t: Truth[]) => implied(fact, br, t) : undefined;
    const reduced = (g: MembershipQuery) => reducedKey(g.kind === 'filters' ? branchesOf(g.groups) : [], truth, sharpen);
    // Only asked of items the sample leaves low: the question's own reduction is made on first use.
    let qKey: string | undefined;
    sameInBucket.set(k, (removed) => {
      qKey ??= reduced(query);
      return (
        reduced(
          withoutItems(
            query,
            removed.map((i) => items[i]!),
          ),
        ) === qKey
      );
    });
    noOp.set(k, (i) => {
      const it = items[i]!;
      if (it.kind === 'condition') return truth(branches[it.branch]![it.condition]!) === 'true';
      return it.kind === 'branch' && branches[it.branch]!.some((c) => truth(c) === 'false');
    });
    const qSet = exact ? sumOver(b.masks, (m) => satisfies(m, q)) : b.q!;
    const effects: Effect[] = forms.map((f, i) => {
      const diff = sumOver(b.masks, (m) => satisfies(m, f) !== satisfies(m, q));
      if (exact) return diff;
      if (diff.n > LOW_EFFECT) return 'large';
      if (sameInBucket.get(k)!([i])) return { ...NOBODY };
      unsettled.set(i, [...(unsettled.get(i) ?? []), k]);
      return diff;
    });
    // As by forms: a bucket is one where the question or a form without one item has someone.
    if (k === '' || qSet.n > 0 || effects.some((e) => e === 'large' || e.n > 0))
      buckets.set(k, { dimension: b.dimension, value: b.value, q: { ...qSet, m: null }, effects });
  }
  if (unsettled.size > 0) await countEffects(s, query, items, [...unsettled.keys()], buckets, unsettled);
  return {
    buckets,
    known: (k, all) => {
      const b = buckets.get(k)!;
      if (exact) {
        if (all.length === 0) return { set: b.q, diff: { ...NOBODY } };
        const shape = shapeOf(all);
        const masks = raw.get(k)!.masks;
        return { set: sumOver(masks, (m) => satisfies(m, shape)), diff: sumOver(masks, (m) => satisfies(m, shape) !== satisfies(m, q)) };
      }
      // A condition of a removed branch goes with its branch.
      const dropped = new Set(
        all
          .map((i) => items[i]!)
          .filter((it) => it.kind === 'branch')
          .map((it) => (it as { branch: number }).branch),
      );
      const removed = all.filter(
        (i) => !noOp.get(k)!(i) && !(items[i]!.kind === 'condition' && dropped.has((items[i] as { branch: number }).branch)),
      );
      if (removed.length === 0) return { set: b.q, diff: { ...NOBODY } };
      if (removed.length === 1) {
        const e = b.effects[removed[0]!]!;
        if (e === 'large') throw new Error('a removed item has a settled effect');
        const widens = items[removed[0]!]!.kind === 'condition';
        return { set: { n: b.q.n + (widens ? e.n : -e.n), h: xorHex(b.q.h, e.h) }, diff: e };
      }
      return sameInBucket.get(k)!(removed) ? { set: b.q, diff: { ...NOBODY } } : undefined;
    },
  };
}

const segment = (groups: FilterGroup[], id: string): SegmentMembership => ({
  kind: 'filter',
  segmentId: id,
  groups,
  recordLimit: null,
  subsetSeed: id,
});

/** The persons each unsettled item adds (a condition) or removes (a branch), counted exactly in every bucket. */
async function countEffects(
  s: FormsScan,
  query: { kind: 'filters'; groups: FilterGroup[] },
  items: readonly Item[],
  which: number[],
  buckets: Map<string, BucketStats>,
  unsettled: ReadonlyMap<number, string[]>,
): Promise<void> {
  // A condition's removal adds the persons of its branch without it that the question leaves out; a
  // branch's removal takes away the persons of that branch that no other branch keeps. Each term leads
  // with one branch's conjunction, which DuckDB pushes into the scan.
  const branches = branchesOf(query.groups);
  const diffs = which.map((i) => {
    const it = items[i]!;
    if (it.kind === 'member') throw new Error('raw filters have no segment items');
    const [more, less] =
      it.kind === 'condition'
        ? [groupsOf([branches[it.branch]!.filter((_, ci) => ci !== it.condition)])!, query.groups]
        : [groupsOf([branches[it.branch]!])!, groupsOf(branches.filter((_, bi) => bi !== it.branch))!];
    return {
      query: {
        kind: 'composition' as const,
        composition: { include: [segment(more, 'more')], exclude: [segment(less, 'less')], setLogic: 'union' as const },
      },
    };
  });
  const sql = setStatsSql(diffs, {
    catalog: s.o.catalog,
    personsTable: s.o.personsTable,
    dimColumn: s.o.dim?.column,
    breakdown: s.o.breakdown,
  });
  s.count();
  const found = new Map<string, SetCount>();
  for (const row of await s.run(sql.sql, sql.params)) {
    found.set(`${Number(row.__form)}|${bucketOfRow(row, s.o).key}`, { n: Number(row.n ?? 0), h: hex(row.h) });
  }
  which.forEach((item, f) => {
    for (const k of unsettled.get(item)!) {
      const b = buckets.get(k);
      if (b) b.effects[item] = found.get(`${f}|${k}`) ?? { ...NOBODY };
    }
  });
}

export type { FormStat };
