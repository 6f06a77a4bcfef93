/**
 * What a release's geography tells about a branch of a question (decision 052, "cost"): which values of
 * its location fields occur together. Every person of `city IN ('LOS ANGELES', 'SAN DIEGO')` lives in
 * CA when no person of another state has those cities, so `state = 'CA'` beside that condition changes
 * nobody: the measure knows it without reading the table, where a sample alone never could (a sample
 * can show that a condition adds persons, never that it adds none).
 *
 * The facts are the distinct tuples of the release's location fields (`graph` `locationFactsSql`): a
 * superset of what any selection of the release holds, so an implication true over them is true for
 * every person. Conditions are judged by conditionTruth (bucket-logic.ts), which answers `unknown`
 * whenever the compiler's SQL semantics leave doubt; `unknown` never rules a tuple out.
 */
import type { CatalogField, FilterCatalog, FilterCondition } from '../../graph/index.ts';
import { conditionTruth, type BucketFact, type Truth } from './bucket-logic.ts';
import { conditionKey } from './canonical.ts';

export interface LocationFacts {
  /** Catalog field names, in the order of each row. */
  fields: readonly string[];
  /** The distinct tuples of those fields' values over the release. */
  rows: readonly (string | null)[][];
}

const TRUE = 1;
const FALSE = 0;
const UNKNOWN = 2;
/** Branches and conditions remembered per release before starting over (a served process asks many). */
const MEMO_LIMIT = 10_000;

/**
 * The truths of a branch's conditions inside a bucket, sharpened by the facts: a condition on a location
 * field is true (or false) when every tuple the branch's other remaining conditions and the bucket allow
 * satisfies it (or none does). Conditions are judged one by one and a condition found true no longer
 * constrains the next, so the conditions kept imply every one removed.
 */
export type BranchTruths = (fact: BucketFact | null, branch: readonly FilterCondition[], truths: readonly Truth[]) => Truth[];

export function branchTruths(catalog: FilterCatalog, facts: LocationFacts): BranchTruths {
  const byName = new Map<string, CatalogField>();
  for (const f of catalog) for (const n of [f.name, ...f.aliases]) byName.set(n, f);
  const column = new Map(facts.fields.map((f, i) => [f, i]));
  const vectors = new Map<string, Int8Array>();
  /** The condition's truth for each tuple (one evaluation per distinct value of its field). */
  const vectorOf = (c: FilterCondition, field: CatalogField): Int8Array => {
    const key = conditionKey(c);
    let v = vectors.get(key);
    if (!v) {
      const at = column.get(field.name)!;
      const byValue = new Map<string | null, number>();
      v = Int8Array.from(facts.rows, (r) => {
        const value = r[at]!;
        if (!byValue.has(value)) {
          const t = conditionTruth(c, field, { field: field.name, value });
          byValue.set(value, t === 'true' ? TRUE : t === 'false' ? FALSE : UNKNOWN);
        }
        return byValue.get(value)!;
      });
      vectors.set(key, v);
    }
    return v;
  };
  const buckets = new Map<string, Int8Array>();
  const inBucket = (fact: BucketFact | null): Int8Array | null => {
    if (!fact || !('value' in fact) || !column.has(fact.field)) return null;
    const key = JSON.stringify(fact);
    if (!buckets.has(key)) {
      const at = column.get(fact.field)!;
      buckets.set(
        key,
        Int8Array.from(facts.rows, (r) => (r[at] === fact.value ? TRUE : FALSE)),
      );
    }
    return buckets.get(key)!;
  };
  // Measures ask of the same branches in many buckets and removal patterns; a bucket of another field
  // (gender, an age band) constrains no tuple, so it shares the answer of the total.
  const memo = new Map<string, Truth[]>();
  return (fact, branch, truths) => {
    if (truths.includes('false')) return [...truths];
    const located = fact && column.has(fact.field) ? fact : null;
    const key = JSON.stringify([located, branch.map(conditionKey), truths]);
    if (!memo.has(key)) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      if (vectors.size >= MEMO_LIMIT) vectors.clear();
      memo.set(key, sharpen(located, branch, truths));
    }
    return [...memo.get(key)!];
  };

  function sharpen(fact: BucketFact | null, branch: readonly FilterCondition[], truths: readonly Truth[]): Truth[] {
    const out = [...truths];
    const located = branch.flatMap((c, i) => {
      const field = byName.get(c.field);
      return field && column.has(field.name) && out[i] === 'unknown' ? [{ i, v: vectorOf(c, field) }] : [];
    });
    const bucket = inBucket(fact);
    if (located.length + (bucket ? 1 : 0) < 2) return out;
    const active = new Set(located.map((l) => l.i));
    for (const { i, v } of located) {
      const others = located.filter((l) => l.i !== i && active.has(l.i)).map((l) => l.v);
      if (bucket) others.push(bucket);
      let all = true;
      let none = true;
      for (let r = 0; r < v.length && (all || none); r++) {
        if (others.some((o) => o[r] === FALSE)) continue;
        if (v[r] !== TRUE) all = false;
        if (v[r] !== FALSE) none = false;
      }
      if (all) {
        out[i] = 'true';
        active.delete(i);
      } else if (none) {
        out[i] = 'false';
        return out;
      }
    }
    return out;
  }
}
