/**
 * Conditions in canonical form, so that rephrasings of one condition name the same noise layers
 * (docs/decisions/015-privacy-threat-model.md, "averaging by rephrasing"): an attacker who asks the
 * same set in N equivalent forms gets the same noise N times, not N fresh samples to average.
 *
 * Within one AND branch:
 * - bounds on an ordered field merge into one range: `age > 95`, `age >= 96`, `age >= 96 AND age > 90`,
 *   `age BETWEEN 96 AND 200` vs `age >= 96 AND age <= 200`; on INTEGER fields strict bounds become
 *   inclusive (`> 95` is `>= 96`, `< 30.5` is `<= 30`) and on DATE fields by whole days; a range of
 *   one value is `=`;
 * - one-value lists are `=` / `!=`; lists are sorted and deduplicated;
 * - BOOLEAN: `!= false`, `NOT IN [false]` and `IN [true]` are `= true` (NULL matches none of them);
 * - case: on a field stored in upper case, a case-insensitive comparison of ASCII text is the exact
 *   comparison of the upper-cased text (as the compiler runs it); `text_comparison` and
 *   `trim_whitespace` do not matter for non-text fields.
 * Field types come from the catalog (src/graph/person-fields.ts); a field not found there keeps its
 * conditions as they are, apart from list order.
 */
import { CATALOG_FIELDS } from '../../graph/index.ts';
import type { CatalogField } from '../../graph/index.ts';
import type { FilterCondition } from '../../graph/index.ts';

const FIELDS = new Map<string, CatalogField>(CATALOG_FIELDS.map((f) => [f.name, f]));
const UNORDERED = new Set(['IN', 'NOT IN', 'ARRAY_CONTAINS_ANY']);
const TEXT_OPS = new Set(['=', '!=', 'IN', 'NOT IN', 'LIKE', 'ARRAY_CONTAINS', 'ARRAY_CONTAINS_ANY']);
const DAY = 86_400_000;

type Scalar = string | number | boolean | null;
interface Bound {
  v: number;
  inclusive: boolean;
}

const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s);
const sortedUnique = (values: readonly unknown[]) =>
  [...new Set(values.map((v) => JSON.stringify(v)))].sort().map((v) => JSON.parse(v) as Scalar);

/** The canonical key of one condition as given (no merging with others). */
function key(field: string, op: string, value: unknown, textComparison: string, trim: boolean): string {
  return JSON.stringify([field, op, value ?? null, textComparison, trim]);
}

/** One condition with case, lists and one-value lists normalized (still one condition). */
function normalized(c: FilterCondition): FilterCondition {
  const field = FIELDS.get(c.field);
  let { op } = c;
  let value = c.value as unknown;
  let tc = c.text_comparison ?? 'exact';
  let trim = c.trim_whitespace ?? false;
  if (field && field.type !== 'STRING' && field.type !== 'ARRAY<STRING>') {
    tc = 'exact';
    trim = false;
  }
  if (field?.stored_upper && tc === 'case_insensitive' && TEXT_OPS.has(op)) {
    const texts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (texts.every(isAscii)) {
      value = Array.isArray(value)
        ? value.map((v) => (typeof v === 'string' ? v.toUpperCase() : v))
        : typeof value === 'string'
          ? value.toUpperCase()
          : value;
      tc = 'exact';
    }
  }
  if (Array.isArray(value) && UNORDERED.has(op)) value = sortedUnique(value);
  if ((op === 'IN' || op === 'NOT IN') && Array.isArray(value) && value.length === 1) {
    op = op === 'IN' ? '=' : '!=';
    value = value[0];
  }
  if (field?.type === 'BOOLEAN' && typeof value === 'boolean' && op === '!=') {
    op = '=';
    value = !value;
  }
  return { field: c.field, op, value: value as FilterCondition['value'], text_comparison: tc, trim_whitespace: trim };
}

/** An ordered field's value as a number (DATE: days since the epoch); null when it is not one. */
function ordinal(field: CatalogField, v: unknown): number | null {
  if (field.type === 'INTEGER' || field.type === 'NUMBER') return typeof v === 'number' && Number.isFinite(v) ? v : null;
  if (field.type === 'DATE' && typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    return Number.isNaN(t) ? null : t / DAY;
  }
  return null;
}

const discrete = (field: CatalogField) => field.type === 'INTEGER' || field.type === 'DATE';

/** The range a bound condition states, or null when the condition is not a bound on an ordered field. */
function boundsOf(field: CatalogField, c: FilterCondition): { lo?: Bound; hi?: Bound } | null {
  if (c.op === 'BETWEEN') {
    const [a, b] = Array.isArray(c.value) ? c.value.map((v) => ordinal(field, v)) : [null, null];
    return a === null || b === null || a === undefined || b === undefined
      ? null
      : { lo: { v: a, inclusive: true }, hi: { v: b, inclusive: true } };
  }
  const v = ordinal(field, c.value);
  if (v === null) return null;
  switch (c.op) {
    case '=':
      return discrete(field) && !Number.isInteger(v) ? null : { lo: { v, inclusive: true }, hi: { v, inclusive: true } };
    case '>':
      return { lo: { v, inclusive: false } };
    case '>=':
      return { lo: { v, inclusive: true } };
    case '<':
      return { hi: { v, inclusive: false } };
    case '<=':
      return { hi: { v, inclusive: true } };
    default:
      return null;
  }
}

/** On a discrete field every bound is an inclusive integer bound. */
function snap(field: CatalogField, b: Bound, side: 'lo' | 'hi'): Bound {
  if (!discrete(field)) return b;
  if (side === 'lo') return { v: b.inclusive ? Math.ceil(b.v) : Math.floor(b.v) + 1, inclusive: true };
  return { v: b.inclusive ? Math.floor(b.v) : Math.ceil(b.v) - 1, inclusive: true };
}

/** The tighter of two bounds on one side. */
function tighter(a: Bound | undefined, b: Bound, side: 'lo' | 'hi'): Bound {
  if (!a) return b;
  if (a.v !== b.v) return (side === 'lo' ? a.v > b.v : a.v < b.v) ? a : b;
  return { v: a.v, inclusive: a.inclusive && b.inclusive };
}

function shown(field: CatalogField, v: number): number | string {
  return field.type === 'DATE' ? new Date(v * DAY).toISOString().slice(0, 10) : v;
}

/** The canonical keys of the conditions of one AND branch, sorted and deduplicated. */
export function canonicalBranch(conditions: readonly FilterCondition[]): string[] {
  const keys = new Set<string>();
  const ranges = new Map<string, { field: CatalogField; lo?: Bound; hi?: Bound }>();
  for (const raw of conditions) {
    const c = normalized(raw);
    const field = FIELDS.get(c.field);
    const b = field ? boundsOf(field, c) : null;
    if (!field || !b) {
      keys.add(key(c.field, c.op, c.value, c.text_comparison!, c.trim_whitespace!));
      continue;
    }
    const r = ranges.get(field.name) ?? { field };
    if (b.lo) r.lo = tighter(r.lo, snap(field, b.lo, 'lo'), 'lo');
    if (b.hi) r.hi = tighter(r.hi, snap(field, b.hi, 'hi'), 'hi');
    ranges.set(field.name, r);
  }
  for (const { field, lo, hi } of ranges.values()) {
    const k = (op: string, value: unknown) => keys.add(key(field.name, op, value, 'exact', false));
    if (lo && hi && lo.v === hi.v && lo.inclusive && hi.inclusive) k('=', shown(field, lo.v));
    else if (lo && hi) k('RANGE', [shown(field, lo.v), lo.inclusive, shown(field, hi.v), hi.inclusive]);
    else if (lo) k(lo.inclusive ? '>=' : '>', shown(field, lo.v));
    else if (hi) k(hi.inclusive ? '<=' : '<', shown(field, hi.v));
  }
  return [...keys].sort();
}

/** One condition in canonical form (a branch of one condition). */
export function conditionKey(c: FilterCondition): string {
  return canonicalBranch([c])[0]!;
}
