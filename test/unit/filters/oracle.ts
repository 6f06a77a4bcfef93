/**
 * An independent, plain-TypeScript statement of the filter semantics, evaluated row by row. It
 * shares no code with src/graph/filters on purpose: the semantic tests compare the two.
 */
import type { FilterCondition } from '../../../src/graph/filters/index.ts';

export type Cell = string | number | boolean | null | string[];
export type Row = Record<string, Cell>;

const WS = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

function likeToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else if (ch === '%') re += '.*';
    else if (ch === '_') re += '.';
    else re += escapeRe(ch);
  }
  return new RegExp(`^${re}$`, 'su');
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Byte-wise (UTF-8) order, as DuckDB orders VARCHAR. */
function cmpText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

type Kind = 'text' | 'date' | 'num' | 'bool' | 'list';
/** The oracle's own notion of each fixture column's type (deliberately not read from the catalog). */
const KIND: Record<string, Kind> = {
  first_name: 'text',
  city: 'text',
  state: 'text',
  zip5: 'text',
  zip3: 'text',
  gender: 'text',
  age: 'num',
  income: 'num',
  birth_date: 'date',
  is_homeowner: 'bool',
  interests: 'list',
  tags: 'list',
};

export function evalCondition(row: Row, c: FilterCondition): boolean {
  const kind = KIND[c.field];
  if (!kind) throw new Error(`oracle: unknown field ${c.field}`);
  const cell = row[c.field];
  const ci = c.text_comparison === 'case_insensitive';
  const trim = c.trim_whitespace === true;
  const norm = (s: string) => {
    const t = trim ? s.replace(WS, '') : s;
    return ci ? t.toLowerCase() : t;
  };

  if (kind === 'list') {
    const list = cell as string[] | null;
    if (c.op === 'IS NULL') return list === null || list.length === 0;
    if (c.op === 'IS NOT NULL') return list !== null && list.length > 0;
    if (list === null) return false;
    const wanted = (Array.isArray(c.value) ? c.value : [c.value]).map((v) => norm(String(v)));
    return list.some((e) => wanted.includes(norm(e)));
  }
  if (c.op === 'IS NULL') return cell === null;
  if (c.op === 'IS NOT NULL') return cell !== null;
  if (cell === null) return false; // SQL: every comparison with NULL is unknown -> row not selected

  const values = Array.isArray(c.value) ? c.value : [c.value!];
  let cmp: (v: string | number | boolean) => number;
  if (kind === 'text') {
    const left = norm(cell as string);
    if (c.op === 'LIKE') return likeToRegExp(norm(String(values[0]))).test(left);
    cmp = (v) => cmpText(left, norm(String(v)));
  } else if (kind === 'date') {
    const d = cell as string;
    cmp = (v) => (d < String(v) ? -1 : d > String(v) ? 1 : 0); // ISO dates order as text
  } else if (kind === 'bool') {
    cmp = (v) => (cell === v ? 0 : 1);
  } else {
    cmp = (v) => (cell as number) - (v as number);
  }
  switch (c.op) {
    case '=':
      return cmp(values[0]!) === 0;
    case '!=':
      return cmp(values[0]!) !== 0;
    case '<':
      return cmp(values[0]!) < 0;
    case '<=':
      return cmp(values[0]!) <= 0;
    case '>':
      return cmp(values[0]!) > 0;
    case '>=':
      return cmp(values[0]!) >= 0;
    case 'IN':
      return values.some((v) => cmp(v) === 0);
    case 'NOT IN':
      return values.every((v) => cmp(v) !== 0);
    case 'BETWEEN':
      return cmp(values[0]!) >= 0 && cmp(values[1]!) <= 0;
    default:
      throw new Error(`oracle: unhandled ${c.op}`);
  }
}
