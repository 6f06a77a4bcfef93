/**
 * What can be known about a question inside one bucket without reading a row (decision 052, "cost").
 *
 * A bucket of a grouping is the persons with one value of one field (`state = 'TX'`, `age` in 25-34). A
 * condition on that same field is then true for every person of the bucket, false for every one, or
 * unknown. With those truths the question restricted to the bucket reduces to a smaller OR of ANDs; two
 * questions whose reductions are equal select the same persons in the bucket. The measure uses this to
 * know, without scanning, that a condition implied by the bucket (`state = 'TX'` in the TX bucket) or a
 * branch the bucket rules out changes nobody there.
 *
 * Sound, not complete: every answer other than `unknown` must hold for every row under the compiler's
 * SQL semantics (graph/filters/compile-condition.ts), so anything not plainly decidable is `unknown`
 * (text ranges, LIKE, trimming, non-ASCII folding, dates, arrays).
 */
import { AGE_BANDS, BREAKDOWN_DIMENSIONS } from '../../graph/index.ts';
import type { CatalogField } from '../../graph/index.ts';
import type { FilterCatalog, FilterCondition } from '../../graph/index.ts';
import { conditionKey } from './canonical.ts';

export type Truth = 'true' | 'false' | 'unknown';
type Scalar = string | number | boolean;

/** One bucket as a fact about its persons: `field` equals `value` (null: is NULL), or lies in [lo, hi]. */
export type BucketFact = { field: string; value: Scalar | null } | { field: string; range: { lo: number; hi: number } | null };

/** The fact of a bucket of a default breakdown or of a group_by on a catalog field; null when none is known. */
export function bucketFact(dimension: string, value: unknown, groupByField?: string): BucketFact | null {
  const v = typeof value === 'bigint' ? Number(value) : (value as Scalar | null);
  if (groupByField !== undefined) return { field: groupByField, value: v };
  const dim = BREAKDOWN_DIMENSIONS.find((d) => d.name === dimension);
  if (!dim) return null;
  if (dim.name !== 'age_band') return { field: dim.field, value: v };
  if (v === null) return { field: dim.field, range: null };
  const band = AGE_BANDS.find((b) => b.label === v);
  return band ? { field: dim.field, range: { lo: band.lo, hi: band.hi } } : null;
}

const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s);
const inputs = (c: FilterCondition): unknown[] => (Array.isArray(c.value) ? c.value : [c.value]);

/** The truth of a comparison of a non-NULL scalar `v` with the condition's inputs. */
function compareScalar(c: FilterCondition, field: CatalogField, v: Scalar): Truth {
  let xs = inputs(c);
  let value: Scalar = v;
  if (field.type === 'STRING') {
    if (c.trim_whitespace === true || typeof v !== 'string' || !xs.every((x) => typeof x === 'string')) return 'unknown';
    if (c.text_comparison === 'case_insensitive') {
      if (!isAscii(v) || !xs.every((x) => isAscii(x as string))) return 'unknown';
      value = v.toLowerCase();
      xs = xs.map((x) => (x as string).toLowerCase());
    }
    if (!['=', '!=', 'IN', 'NOT IN'].includes(c.op)) return 'unknown';
  } else if (field.type === 'INTEGER' || field.type === 'NUMBER') {
    if (
      typeof v !== 'number' ||
      !xs.every((x) => typeof x === 'number' && Number.isFinite(x) && (field.type === 'NUMBER' || Number.isInteger(x)))
    )
      return 'unknown';
  } else if (field.type === 'BOOLEAN') {
    if (typeof v !== 'boolean' || !xs.every((x) => typeof x === 'boolean') || !['=', '!=', 'IN', 'NOT IN'].includes(c.op)) return 'unknown';
  } else {
    return 'unknown';
  }
  const n = value as number;
  const t = (b: boolean): Truth => (b ? 'true' : 'false');
  switch (c.op) {
    case '=':
      return t(value === xs[0]);
    case '!=':
      return t(value !== xs[0]);
    case 'IN':
      return t(xs.includes(value));
    case 'NOT IN':
      return t(!xs.includes(value));
    case '<':
      return t(n < (xs[0] as number));
    case '<=':
      return t(n <= (xs[0] as number));
    case '>':
      return t(n > (xs[0] as number));
    case '>=':
      return t(n >= (xs[0] as number));
    case 'BETWEEN':
      return t(n >= (xs[0] as number) && n <= (xs[1] as number));
    default:
      return 'unknown';
  }
}

/** The truth of a condition on an INTEGER field over every whole number in [lo, hi]. */
function compareRange(c: FilterCondition, lo: number, hi: number): Truth {
  const xs = inputs(c);
  if (!xs.every((x) => typeof x === 'number' && Number.isInteger(x))) return 'unknown';
  const [a, b] = xs as number[];
  const within = (x: number) => x >= lo && x <= hi;
  const decide = (all: boolean, none: boolean): Truth => (all ? 'true' : none ? 'false' : 'unknown');
  switch (c.op) {
    case '=':
      return decide(lo === hi && lo === a, !within(a!));
    case '!=':
      return decide(!within(a!), lo === hi && lo === a);
    case 'IN':
      return decide(false, !xs.some((x) => within(x as number)));
    case 'NOT IN':
      return decide(!xs.some((x) => within(x as number)), false);
    case '<':
      return decide(hi < a!, lo >= a!);
    case '<=':
      return decide(hi <= a!, lo > a!);
    case '>':
      return decide(lo > a!, hi <= a!);
    case '>=':
      return decide(lo >= a!, hi < a!);
    case 'BETWEEN':
      return decide(a! <= lo && hi <= b!, a! > b! || b! < lo || a! > hi);
    default:
      return 'unknown';
  }
}

/** The truth of a condition for every person of a bucket. */
export function conditionTruth(c: FilterCondition, field: CatalogField | undefined, fact: BucketFact | null): Truth {
  if (!fact || !field || field.name !== fact.field || field.type === 'ARRAY<STRING>' || field.storage.kind === 'bitmask') return 'unknown';
  const isNull = 'range' in fact ? fact.range === null : fact.value === null;
  // A comparison with NULL is never true (WHERE drops it); only IS NULL holds.
  if (c.op === 'IS NULL') return isNull ? 'true' : 'false';
  if (c.op === 'IS NOT NULL') return isNull ? 'false' : 'true';
  if (isNull) return 'false';
  if ('range' in fact) return field.type === 'INTEGER' ? compareRange(c, fact.range!.lo, fact.range!.hi) : 'unknown';
  return compareScalar(c, field, fact.value as Scalar);
}

type Branches = readonly (readonly FilterCondition[])[];

/**
 * The question (OR of AND branches) inside a bucket, as a canonical string: branches with a false
 * condition dropped, true conditions removed, branches that contain another branch absorbed. Equal
 * strings select the same persons of the bucket. `sharpen` may decide more of a branch's conditions
 * from the branch itself (location-facts.ts).
 */
export function reducedKey(
  branches: Branches,
  truth: (c: FilterCondition) => Truth,
  sharpen: (b: readonly FilterCondition[], truths: Truth[]) => Truth[] = (_, t) => t,
): string {
  const kept: string[][] = [];
  for (const b of branches) {
    const truths = sharpen(b, b.map(truth));
    if (truths.includes('false')) continue;
    const rest = [...new Set(b.filter((_, i) => truths[i] === 'unknown').map(conditionKey))].sort();
    if (rest.length === 0) return 'everyone';
    kept.push(rest);
  }
  const absorbed = kept.filter(
    (a, i) => !kept.some((b, j) => j !== i && b.length <= a.length && b.every((k) => a.includes(k)) && (b.length < a.length || j < i)),
  );
  return JSON.stringify(absorbed.map((b) => JSON.stringify(b)).sort());
}

/** A memoized truth function for one bucket over a catalog. */
export function truthIn(catalog: FilterCatalog, fact: BucketFact | null): (c: FilterCondition) => Truth {
  const byName = new Map<string, CatalogField>();
  for (const f of catalog) for (const n of [f.name, ...f.aliases]) byName.set(n, f);
  return (c) => conditionTruth(c, byName.get(c.field), fact);
}
