/**
 * Measuring a question by its member set (docs/decisions/052-privacy-by-member-set.md):
 * 1. one statement counts the question and each of its forms (the question without one removable item,
 *    forms.ts), with the set hash of each, for the total and per bucket;
 * 2. an item whose removal changes the set by fewer than a few persons (the low-effect threshold,
 *    seeded by the hash of exactly the persons it changes) is treated as absent: the set shown is the
 *    set of the question without it (one form: already counted; several: one more statement);
 * 3. the caller shows the measured set through the privacy service (`protectSet`): noise and
 *    threshold seeded by the set's hash plus static layers of the conditions that remain.
 * So rephrasing that keeps the set (redundant OR branches, vacuous or implied conditions) keeps the
 * answer, and a condition or branch that adds or removes one person changes nothing that is shown.
 */
import type { FilterCatalog } from '../../graph/filters/index.ts';
import { setStatsSql, type SetForm } from '../../graph/membership/sets.ts';
import type { MembershipQuery } from '../../graph/membership/types.ts';
import { formsOf, withoutItems, type Item } from './forms.ts';
import { lowEffectThreshold } from './noise.ts';
import { setLayers } from './question.ts';

export type GroupValue = string | number | boolean | null;
/** A set of persons: its size and its hash (hex of `bit_xor(hash(person_key))`, `0` for nobody). */
export interface SetCount { n: number; h: string }
/** A set as shown: the static layers of the question that selected it (after low-effect removal). */
export interface MeasuredSet extends SetCount { layers: string[]; matched: SetCount | null }
export interface MeasuredBucket { dimension: string; group_value: GroupValue; set: MeasuredSet }
export interface Measured {
  total: MeasuredSet;
  /** The question answered (without its low-effect items). */
  query: MembershipQuery;
  /** Items found of low effect for the total (for the question log and tests). */
  lowEffect: number;
  buckets: MeasuredBucket[];
  /** Statements run (1 unless low-effect items or many items). */
  statements: number;
}

export type Run = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
export interface MeasureOptions {
  catalog: FilterCatalog;
  personsTable?: string;
  matched?: boolean;
  /** group_by: the dimension's name and SQL over `p`. */
  dim?: { name: string; expr: string };
  /** Default breakdowns: the codes table. */
  breakdown?: string;
}

/** Most forms counted in one scan; a question with more items is measured in several. */
export const MAX_FORMS_PER_SCAN = 24;

export const hex = (v: unknown): string => (v === null || v === undefined ? '0' : BigInt(v as bigint | number | string).toString(16));
export const xorHex = (a: string, b: string): string => (BigInt(`0x${a}`) ^ BigInt(`0x${b}`)).toString(16);

interface FormStat { n: number; h: string; e: number | null; m: SetCount | null }
interface RowStats { dimension: string | null; value: GroupValue; forms: FormStat[] }

function plain(v: unknown): GroupValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return String(v);
}

/** Rows of a stats statement by bucket key (`''` for the total), each with the stats of every form (nobody where a form has no row). */
function readRows(rows: Record<string, unknown>[], forms: number, o: MeasureOptions, matched: boolean): Map<string, RowStats> {
  const out = new Map<string, RowStats>();
  const empty = (): FormStat => ({ n: 0, h: '0', e: null, m: matched ? { n: 0, h: '0' } : null });
  out.set('', { dimension: null, value: null, forms: Array.from({ length: forms }, empty) });
  for (const row of rows) {
    let dimension: string | null = null;
    let value: GroupValue = null;
    if (o.breakdown) {
      if (row.dimension !== null && row.dimension !== undefined) [dimension, value] = [String(row.dimension), plain(row.value)];
    } else if (o.dim && Number(row.g0) === 0) {
      [dimension, value] = [o.dim.name, plain(row.d0)];
    }
    const key = dimension === null ? '' : JSON.stringify([dimension, value]);
    if (!out.has(key)) out.set(key, { dimension, value, forms: Array.from({ length: forms }, empty) });
    out.get(key)!.forms[Number(row.__form)] = {
      n: Number(row.n ?? 0), h: hex(row.h), e: Number(row.e ?? 0),
      m: matched ? { n: Number(row.m ?? 0), h: hex(row.mh) } : null,
    };
  }
  return out;
}

/** Appends a later chunk's forms (its form 0 repeats the first chunk's) to every bucket, nobody where a bucket has no row. */
function mergeChunk(merged: Map<string, RowStats>, part: Map<string, RowStats>): void {
  const width = [...part.values()][0]!.forms.length - 1;
  const nobody = (n: number): FormStat[] => Array.from({ length: n }, () => ({ n: 0, h: '0', e: 0, m: null }));
  const before = [...merged.values()][0]!.forms.length;
  for (const [k, r] of merged) r.forms.push(...(part.get(k)?.forms.slice(1) ?? nobody(width)));
  for (const [k, r] of part) if (!merged.has(k)) merged.set(k, { ...r, forms: [r.forms[0]!, ...nobody(before - 1), ...r.forms.slice(1)] });
}

/** Items of low effect that may be removed: never every branch of a filter, condition of a branch or included segment. */
function removable(items: readonly Item[], low: readonly number[], includes: number): number[] {
  const level = (it: Item) => (it.kind === 'condition' ? `c${it.m}:${it.branch}` : it.kind === 'branch' ? `b${it.m}` : 'm');
  const total = new Map<string, number>();
  items.forEach((it) => total.set(level(it), (total.get(level(it)) ?? 0) + 1));
  const lowBy = new Map<string, number>();
  for (const i of low) lowBy.set(level(items[i]!), (lowBy.get(level(items[i]!)) ?? 0) + 1);
  // Included members only count against each other; excluded ones may all go.
  return low.filter((i) => {
    const it = items[i]!;
    if (it.kind === 'member' && it.m >= includes) return true;
    return lowBy.get(level(it))! < total.get(level(it))!;
  });
}

export function createSetMeasure(secret: string) {
  /** Which items have low effect on one bucket (or the total). */
  function lowItems(r: RowStats, symmetric: readonly boolean[]): number[] {
    const [q, ...forms] = r.forms;
    const low: number[] = [];
    forms.forEach((f, i) => {
      const effect = symmetric[i] ? (f.e ?? 0) : Math.abs(f.n - q!.n);
      if (effect < lowEffectThreshold(secret, xorHex(q!.h, f.h))) low.push(i);
    });
    return low;
  }

  return async function measure(run: Run, asked: MembershipQuery, o: MeasureOptions): Promise<Measured> {
    const { query, forms, items } = formsOf(asked);
    const includes = query.kind === 'composition' ? query.composition.include.length : 0;
    const matched = o.matched === true;
    const sqlOptions = { catalog: o.catalog, personsTable: o.personsTable, matched, dim: o.dim?.expr, breakdown: o.breakdown };
    let statements = 0;
    const stats = async (fs: SetForm[]) => {
      const s = setStatsSql(fs, sqlOptions);
      statements += 1;
      return readRows(await run(s.sql, s.params), fs.length, o, matched);
    };
    // Form 0 in every scan; the items in chunks.
    let merged: Map<string, RowStats> | null = null;
    for (let at = 0; at === 0 || at < items.length; at += MAX_FORMS_PER_SCAN) {
      const part = await stats([forms[0]!, ...forms.slice(1 + at, 1 + at + MAX_FORMS_PER_SCAN)]);
      if (!merged) merged = part;
      else mergeChunk(merged, part);
    }
    const rows = merged!;
    // Each bucket's removed items; several removed at once need their own statement (rare).
    const removedOf = new Map<string, number[]>();
    for (const [k, r] of rows) removedOf.set(k, removable(items, lowItems(r, forms.slice(1).map((f) => f.symmetric === true)), includes));
    // Every distinct set of two or more removed items is counted in one more statement (one UNION ALL term each).
    const patterns = [...new Set([...removedOf.values()].filter((r) => r.length >= 2).map((r) => r.join(',')))];
    const followUps = new Map<string, { rows: Map<string, RowStats>; at: number }>();
    for (let at = 0; at < patterns.length; at += MAX_FORMS_PER_SCAN) {
      const chunk = patterns.slice(at, at + MAX_FORMS_PER_SCAN);
      const part = await stats(chunk.map((key) => ({ query: withoutItems(query, key.split(',').map((i) => items[Number(i)]!)) })));
      chunk.forEach((key, i) => followUps.set(key, { rows: part, at: i }));
    }
    const layersCache = new Map<string, string[]>();
    const layersOf = (removed: number[]) => {
      const key = removed.join(',');
      if (!layersCache.has(key)) layersCache.set(key, setLayers(withoutItems(query, removed.map((i) => items[i]!))));
      return layersCache.get(key)!;
    };
    const setOf = (k: string, r: RowStats): MeasuredSet => {
      const removed = removedOf.get(k)!;
      const up = removed.length >= 2 ? followUps.get(removed.join(','))! : null;
      const f = removed.length === 0 ? r.forms[0]! : removed.length === 1 ? r.forms[1 + removed[0]!]! : up!.rows.get(k)?.forms[up!.at];
      const layers = r.dimension === null ? layersOf(removed) : [...layersOf(removed), `v:${r.dimension}|${JSON.stringify(r.value)}`];
      return { n: f?.n ?? 0, h: f?.h ?? '0', matched: f?.m ?? (matched ? { n: 0, h: '0' } : null), layers };
    };
    const totalRow = rows.get('') ?? { dimension: null, value: null, forms: [{ n: 0, h: '0', e: null, m: matched ? { n: 0, h: '0' } : null }] };
    if (!removedOf.has('')) removedOf.set('', []);
    const buckets: MeasuredBucket[] = [];
    for (const [k, r] of rows) {
      if (r.dimension === null) continue;
      const set = setOf(k, r);
      if (set.n > 0) buckets.push({ dimension: r.dimension, group_value: r.value, set });
    }
    const removedTotal = removedOf.get('')!;
    return {
      total: setOf('', totalRow), query: withoutItems(query, removedTotal.map((i) => items[i]!)), lowEffect: removedTotal.length, buckets, statements,
    };
  };
}

export type SetMeasure = ReturnType<typeof createSetMeasure>;
