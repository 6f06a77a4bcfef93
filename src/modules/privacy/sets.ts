/**
 * Measuring a question by its member set (docs/decisions/052-privacy-by-member-set.md):
 * 1. count the question and what each removable item (forms.ts: a condition, an OR branch, a segment)
 *    changes, with the set hash of each, for the total and per bucket: by condition masks for raw
 *    filters (by-masks.ts, about one scan), by forms for anything else (by-forms.ts);
 * 2. an item whose removal changes the set by fewer than a few persons (the low-effect threshold,
 *    seeded by the hash of exactly the persons it changes) is treated as absent: the set shown is the
 *    set of the question without it;
 * 3. the caller shows the measured set through the privacy service (`protectSet`): noise and
 *    threshold seeded by the set's hash plus static layers of the conditions that remain.
 * So rephrasing that keeps the set (redundant OR branches, vacuous or implied conditions) keeps the
 * answer, and a condition or branch that adds or removes one person changes nothing that is shown.
 */
import { locationFactsSql, type MembershipQuery } from '../../graph/index.ts';
import { branchTruths, type BranchTruths } from './location-facts.ts';
import { statsByForms, type FormsScan } from './by-forms.ts';
import { jointRemovals, type KnownRemoval } from './joint-removal.ts';
import { maskable, statsByMasks } from './by-masks.ts';
import { formsOf, withoutItems } from './forms.ts';
import { setLayers } from './question.ts';
import { uncapVacuous } from './vacuous-caps.ts';
import {
  minBucket,
  NOBODY,
  removedItems,
  type BucketStats,
  type Measured,
  type MeasuredBucket,
  type MeasuredSet,
  type MeasureOptions,
  type Run,
} from './set-stats.ts';

export { MAX_FORMS_PER_SCAN } from './by-forms.ts';
export {
  hex,
  xorHex,
  type Measured,
  type MeasuredBucket,
  type MeasuredSet,
  type MeasureOptions,
  type Run,
  type SetCount,
  type GroupValue,
} from './set-stats.ts';

/** Location facts per (release, table), read once: the last few releases a process serves. */
function locationFactsCache() {
  const cache = new Map<string, Promise<BranchTruths | null>>();
  return (run: Run, o: MeasureOptions): Promise<BranchTruths | null> => {
    const sql = o.release ? locationFactsSql(o.catalog, o.personsTable) : null;
    if (!sql) return Promise.resolve(null);
    const key = `${o.release}|${o.personsTable ?? ''}`;
    if (!cache.has(key)) {
      if (cache.size >= 4) cache.delete(cache.keys().next().value!);
      const read = run(sql.sql, []).then((rows) =>
        branchTruths(o.catalog, {
          fields: sql.fields,
          rows: rows.map((r) => sql.fields.map((_, i) => (r[`f${i}`] === null || r[`f${i}`] === undefined ? null : String(r[`f${i}`])))),
        }),
      );
      // A failed read (a timeout under load) is not kept: the measure counts exactly instead.
      cache.set(
        key,
        read.catch(() => {
          cache.delete(key);
          return null;
        }),
      );
    }
    return cache.get(key)!;
  };
}

export function createSetMeasure(secret: string) {
  const impliedOf = locationFactsCache();
  return async function measure(run: Run, askedAsIs: MembershipQuery, o: MeasureOptions): Promise<Measured> {
    const caps = o.strategy === 'forms' ? null : await uncapVacuous(run, askedAsIs, o);
    const asked = caps?.query ?? askedAsIs;
    const { query, forms, items } = formsOf(asked);
    let statements = caps?.statements ?? 0;
    const s: FormsScan = {
      run,
      o,
      count: () => {
        statements += 1;
      },
    };

    let buckets: Map<string, BucketStats>;
    let known: KnownRemoval;
    if (o.strategy !== 'forms' && maskable(query) && items.length > 0) {
      const m = await statsByMasks(s, query, items, () => impliedOf(run, o));
      buckets = m.buckets;
      known = (k, removed) => {
        const r = m.known(k, removed);
        return r ? { set: { ...r.set, m: null }, diff: r.diff } : undefined;
      };
    } else {
      const f = await statsByForms(s, forms);
      buckets = f.buckets;
      known = (k, removed) => {
        const b = buckets.get(k)!;
        if (removed.length === 0) return { set: b.q, diff: { ...NOBODY } };
        const e = b.effects[removed[0]!]!;
        return removed.length === 1 && e !== 'large' ? { set: f.formOf(k, removed[0]!), diff: e } : undefined;
      };
    }
    const candidates = removedItems(secret, buckets, items);
    const { removedOf, setOf } = await jointRemovals(secret, s, query, items, buckets, candidates, known);

    const layersCache = new Map<string, string[]>();
    const layersOf = (removed: number[]) => {
      const key = removed.join(',');
      if (!layersCache.has(key))
        layersCache.set(
          key,
          setLayers(
            withoutItems(
              query,
              removed.map((i) => items[i]!),
            ),
          ),
        );
      return layersCache.get(key)!;
    };
    const shown = (k: string, b: BucketStats): MeasuredSet => {
      const f = setOf(k);
      const removed = removedOf.get(k)!;
      const layers = b.dimension === null ? layersOf(removed) : [...layersOf(removed), `v:${b.dimension}|${JSON.stringify(b.value)}`];
      return { n: f.n, h: f.h, matched: f.m ?? (o.matched ? { ...NOBODY } : null), layers };
    };
    const out: MeasuredBucket[] = [];
    const smallest = minBucket(query);
    for (const [k, b] of buckets) {
      if (b.dimension === null) continue;
      const set = shown(k, b);
      if (set.n >= smallest) out.push({ dimension: b.dimension, group_value: b.value, set });
    }
    const removedTotal = removedOf.get('')!;
    return {
      total: shown('', buckets.get('')!),
      query: (caps?.restore ?? ((q: MembershipQuery) => q))(
        withoutItems(
          query,
          removedTotal.map((i) => items[i]!),
        ),
      ),
      lowEffect: removedTotal.length,
      buckets: out,
      statements,
    };
  };
}

export type SetMeasure = ReturnType<typeof createSetMeasure>;
