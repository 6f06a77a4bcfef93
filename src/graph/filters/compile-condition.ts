/**
 * SQL for one condition. See index.ts for the documented semantics (NULLs, folding, trimming,
 * bitmasks); this file is the single place they are implemented.
 */
import type { CatalogField, FieldType } from '../field-types.ts';
import { allowedOperators } from './operators.ts';
import { isAscii, SQL_TRIM_CHARS, trimWs } from './text.ts';
import type { FilterCondition, FilterParam, FilterScalar } from './types.ts';
import { matchVocabulary } from './vocabulary.ts';

export class ParamList {
  readonly values: FilterParam[] = [];
  constructor(private readonly offset: number) {}
  /** Binds a value and returns its placeholder. */
  add(v: FilterParam): string {
    this.values.push(v);
    return `$${this.offset + this.values.length}`;
  }
}

/** DuckDB type each scalar field type is cast to, so JS numbers (DOUBLE) and date strings compare as the column's type. */
const CAST: Record<Exclude<FieldType, 'ARRAY<STRING>'>, string | undefined> = {
  STRING: undefined,
  INTEGER: 'BIGINT',
  NUMBER: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
  DATE: 'DATE',
};

const COMPARE = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

export function compileCondition(c: FilterCondition, field: CatalogField, col: string, params: ParamList): string {
  if (!allowedOperators(field).includes(c.op)) throw new Error(`operator ${c.op} not allowed on ${field.name}`);
  if (c.op === 'IS NULL' || c.op === 'IS NOT NULL') return nullTest(c.op, field, col);
  const ci = c.text_comparison === 'case_insensitive';
  const trim = c.trim_whitespace === true;
  if (field.type === 'ARRAY<STRING>') return arrayTest(c, field, col, params, ci, trim);

  const values = (Array.isArray(c.value) ? c.value : [c.value]) as FilterScalar[];
  if (values.some((v) => v === undefined || v === null)) throw new Error(`missing value for ${c.op} on ${field.name}`);
  let lhs = col;
  let bound: FilterScalar[] = values;
  let place = (v: FilterScalar): string => params.add(v);
  if (field.type === 'STRING') {
    bound = values.map((v) => (trim ? trimWs(String(v)) : String(v)));
    if (trim) lhs = `trim(${lhs}, ${SQL_TRIM_CHARS})`;
    if (ci && field.stored_upper === true && bound.every((s) => isAscii(s as string))) {
      // stored_upper shortcut: the column is known upper case, so for ASCII input
      // `lower(col) = lower(x)` is exactly `col = upper(x)` and the per-row lower() is skipped.
      // Non-ASCII input (ß -> SS or ẞ, final sigma...) has no such one-to-one mapping and takes
      // the general path below.
      bound = bound.map((s) => (s as string).toUpperCase());
    } else if (ci) {
      // Both sides folded by the same DuckDB function, so they agree on every character.
      lhs = `lower(${lhs})`;
      place = (v) => `lower(${params.add(v)})`;
    }
  } else {
    const cast = CAST[field.type];
    place = (v) => `CAST(${params.add(v)} AS ${cast})`;
  }

  switch (c.op) {
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return `(${lhs} ${COMPARE[c.op]} ${place(bound[0]!)})`;
    case 'IN':
    case 'NOT IN':
      return `(${lhs} ${c.op} (${bound.map(place).join(', ')}))`;
    case 'BETWEEN':
      return `(${lhs} BETWEEN ${place(bound[0]!)} AND ${place(bound[1]!)})`;
    case 'LIKE':
      // Backslash escapes % and _ (and itself) so literal wildcards can be matched.
      return `(${lhs} LIKE ${place(bound[0]!)} ESCAPE '\\')`;
    default:
      throw new Error(`operator ${c.op} not valid for ${field.type}`);
  }
}

function nullTest(op: 'IS NULL' | 'IS NOT NULL', field: CatalogField, col: string): string {
  // Arrays: "no values" counts as NULL whatever the storage, because a bitmask cannot tell an empty
  // set from a missing one and results must not depend on storage.
  if (field.storage.kind === 'bitmask') return op === 'IS NULL' ? `(${col} IS NULL OR ${col} = 0)` : `(${col} <> 0)`;
  if (field.type === 'ARRAY<STRING>') return op === 'IS NULL' ? `(${col} IS NULL OR len(${col}) = 0)` : `(len(${col}) > 0)`;
  return `(${col} ${op})`;
}

function arrayTest(c: FilterCondition, field: CatalogField, col: string, params: ParamList, ci: boolean, trim: boolean): string {
  if (c.op !== 'ARRAY_CONTAINS' && c.op !== 'ARRAY_CONTAINS_ANY') throw new Error(`operator ${c.op} not valid for arrays`);
  const inputs = (Array.isArray(c.value) ? c.value : [c.value]).map((v) => String(v));
  if (field.storage.kind === 'bitmask') {
    // Input is matched against the vocabulary here, at compile time, and only the mask is bound.
    const vocab = field.storage.values;
    if (vocab.length > 63) throw new Error(`bitmask field ${field.name} has more than 63 values`);
    let mask = 0n;
    for (const input of inputs) {
      const hits = matchVocabulary(input, vocab, { caseInsensitive: ci, trim });
      if (hits.length === 0) throw new Error(`value not in the vocabulary of ${field.name}`);
      for (const h of hits) mask |= 1n << BigInt(vocab.indexOf(h));
    }
    return `((${col} & CAST(${params.add(mask)} AS BIGINT)) <> 0)`;
  }
  const norm = (x: string) => `${ci ? 'lower(' : ''}${trim ? `trim(${x}, ${SQL_TRIM_CHARS})` : x}${ci ? ')' : ''}`;
  const elems = ci || trim ? `list_transform(${col}, lambda x: ${norm('x')})` : col;
  const place = (s: string) => (ci ? `lower(${params.add(trim ? trimWs(s) : s)})` : params.add(trim ? trimWs(s) : s));
  if (c.op === 'ARRAY_CONTAINS') return `list_contains(${elems}, ${place(inputs[0]!)})`;
  return `list_has_any(${elems}, [${inputs.map(place).join(', ')}])`;
}
