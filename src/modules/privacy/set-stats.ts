/**
 * The shapes shared by the two ways a question is measured (by-forms.ts, by-masks.ts) and the rule they
 * share: which items have low effect in a bucket, in the order they are tried for removal.
 */
import type { FilterCatalog } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { branchesOf, type Item } from './forms.ts';
import { LOW_EFFECT, lowEffectThreshold } from './noise.ts';

export type GroupValue = string | number | boolean | null;
/** A set of persons: its size and its hash (hex of `bit_xor(hash(person_key))`, `0` for nobody). */
export interface SetCount {
  n: number;
  h: string;
}
/** A set as shown: the static layers of the question that selected it (after low-effect removal). */
export interface MeasuredSet extends SetCount {
  layers: string[];
  matched: SetCount | null;
}
export interface MeasuredBucket {
  dimension: string;
  group_value: GroupValue;
  set: MeasuredSet;
}
export interface Measured {
  total: MeasuredSet;
  /** The question answered (without its low-effect items). */
  query: MembershipQuery;
  /** Items found of low effect for the total (for the question log and tests). */
  lowEffect: number;
  buckets: MeasuredBucket[];
  /** Statements run. */
  statements: number;
}

export type Run = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
export interface MeasureOptions {
  catalog: FilterCatalog;
  personsTable?: string;
  matched?: boolean;
  /** group_by: the dimension's name, the column grouped by and, for a catalog field, its name. */
  dim?: { name: string; column: string; field?: string };
  /** The default breakdowns (decoded by the release's codes). */
  breakdown?: boolean;
  /** Persons in the scanned table (the release's): above `sampleRows`, a total's low-effect detection starts from a sample. */
  persons?: number;
  /** Default by-masks.ts SAMPLE_ROWS. */
  sampleRows?: number;
  /** The release scanned (its file): keys the location facts a measure from a sample reads once per release (location-facts.ts). */
  release?: string;
  /** `forms`: measure by forms even where masks apply (the reference the masks are compared with). */
  strategy?: 'forms';
}

/** A set with the members that are also in an included matched segment (compositions only). */
export interface FormStat extends SetCount {
  m: SetCount | null;
}
/** What removing one item changes in a bucket: exactly (`n` persons of hash `h`), or at least a few persons. */
export type Effect = SetCount | 'large';
/** One bucket (dimension null: the total) with the question's own set and each item's effect. */
export interface BucketStats {
  dimension: string | null;
  value: GroupValue;
  q: FormStat;
  effects: Effect[];
}

export const hex = (v: unknown): string => (v === null || v === undefined ? '0' : BigInt(v as bigint | number | string).toString(16));
export const xorHex = (a: string, b: string): string => (BigInt(`0x${a}`) ^ BigInt(`0x${b}`)).toString(16);
export const NOBODY: SetCount = { n: 0, h: '0' };

/**
 * The fewest persons a bucket of a grouping must have, after low-effect removal, to be reported at all
 * (shown, counted as suppressed, or merged into `other`). A bucket where the question selects nobody can
 * still show the persons that removed conditions add, fewer than LOW_EFFECT + 1 per OR branch (each
 * branch's conditions are one group, joint-removal.ts): whether it exists must not tell whether the
 * question itself selects someone there (say, the one person a condition isolates), so no bucket that
 * small is reported; and a grouping read from a sample can then leave such buckets unread (by-masks.ts).
 * Raw filters only; a composition's buckets are all found exactly (by-forms.ts) and any nonempty one is
 * reported.
 */
export function minBucket(query: MembershipQuery): number {
  if (query.kind !== 'filters') return 1;
  return LOW_EFFECT * Math.max(1, branchesOf(query.groups).length) + 1;
}
/** Above this minBucket a grouping is measured exactly (by-masks.ts): the bound stays well under the floor's threshold band. */
export const MAX_MIN_BUCKET = 40;

export function plain(v: unknown): GroupValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return String(v);
}

/** The bucket of a stats row: `''` and null dimension for the total. */
export function bucketOfRow(
  row: Record<string, unknown>,
  o: Pick<MeasureOptions, 'breakdown' | 'dim'>,
): { key: string; dimension: string | null; value: GroupValue } {
  let dimension: string | null = null;
  let value: GroupValue = null;
  if (o.breakdown) {
    if (row.dimension !== null && row.dimension !== undefined) [dimension, value] = [String(row.dimension), plain(row.value)];
  } else if (o.dim && Number(row.g0) === 0) {
    [dimension, value] = [o.dim.name, plain(row.d0)];
  }
  return { key: dimension === null ? '' : JSON.stringify([dimension, value]), dimension, value };
}

/**
 * The candidates for removal in each bucket: the items of low effect (threshold seeded by the persons
 * they change), in the order in which joint-removal.ts tries them: segments, then branches, then
 * conditions, each kind in the question's order. Not by effect: an item's effect is 0 or 1 by whether
 * the target is in it, and the order must not follow that. No item is kept for being the last of its
 * kind (every branch, every condition of a branch): the joint bound keeps what removing it would change
 * too much, and a branch redundant beside another must still go when a one-person branch sits between.
 */
export function removedItems(secret: string, buckets: ReadonlyMap<string, BucketStats>, items: readonly Item[]): Map<string, number[]> {
  const rank = (i: number) => ['member', 'branch', 'condition'].indexOf(items[i]!.kind);
  const out = new Map<string, number[]>();
  for (const [k, b] of buckets) {
    const low: number[] = [];
    b.effects.forEach((e, i) => {
      if (e !== 'large' && e.n < lowEffectThreshold(secret, e.h)) low.push(i);
    });
    out.set(
      k,
      low.sort((x, y) => rank(x) - rank(y) || x - y),
    );
  }
  return out;
}
