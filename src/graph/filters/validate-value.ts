/**
 * Value checks for one condition whose field and operator are already known to be valid: arity by
 * operator, scalar type by field type, range order for BETWEEN, closed vocabularies.
 */
import type { CatalogField, FieldType, FilterOperator } from '../field-types.ts';
import { LIST_OPS, NULL_OPS } from './operators.ts';
import { nearest, trimWs } from './text.ts';
import { FILTER_BOUNDS } from './bounds.ts';
import { MAX_LIST_VALUES, type Add } from './types.ts';
import { matchVocabulary, vocabularyOf, VOCABULARY_OPS, type MatchOptions } from './vocabulary.ts';

export function validateValue(
  c: Record<string, unknown>,
  path: string,
  field: CatalogField,
  op: FilterOperator,
  opts: MatchOptions,
  add: Add,
): void {
  const vPath = `${path}.value`;
  const value = c.value;
  if (NULL_OPS.has(op)) {
    // `value: null` is what many JSON encoders emit for "absent"; anything else is a mistake.
    if (value !== undefined && value !== null) add(vPath, 'INVALID_FILTER_VALUE', `\`${op}\` takes no value; remove \`value\`.`);
    return;
  }
  if (value === undefined || value === null) {
    add(vPath, 'INVALID_FILTER_VALUE', `\`${op}\` needs a value${value === null ? ' (to match missing values use `IS NULL`)' : ''}.`);
    return;
  }
  const elemType: FieldType = field.type === 'ARRAY<STRING>' ? 'STRING' : field.type;
  if (LIST_OPS.has(op) || op === 'BETWEEN') {
    if (!Array.isArray(value)) {
      add(vPath, 'INVALID_FILTER_VALUE', `\`${op}\` needs an array of values${op === 'BETWEEN' ? ' [low, high]' : ''}.`);
      return;
    }
    if (op === 'BETWEEN' && value.length !== 2) {
      add(vPath, 'INVALID_FILTER_VALUE', '`BETWEEN` needs exactly two values [low, high] (both inclusive).');
      return;
    }
    if (value.length === 0) {
      add(vPath, 'INVALID_FILTER_VALUE', `\`${op}\` needs at least one value.`);
      return;
    }
    if (value.length > MAX_LIST_VALUES) {
      add(vPath, 'INVALID_FILTER_VALUE', `\`${op}\` accepts at most ${MAX_LIST_VALUES} values; got ${value.length}.`);
      return;
    }
    const okAll = value.map((v, i) => checkScalar(v, `${vPath}[${i}]`, elemType, field, op, opts, add)).every(Boolean);
    if (op === 'BETWEEN' && okAll && compare(value[0], value[1], elemType, opts.trim) > 0) {
      add(
        vPath,
        'INVALID_FILTER_VALUE',
        `\`BETWEEN\` bounds are reversed: ${JSON.stringify(value[0])} is greater than ${JSON.stringify(value[1])}.`,
        [JSON.stringify([value[1], value[0]])],
      );
    }
    return;
  }
  if (Array.isArray(value)) {
    add(
      vPath,
      'INVALID_FILTER_VALUE',
      `\`${op}\` takes a single value, not an array${op === '=' ? '; use `IN` for several values' : ''}.`,
      op === '=' ? ['IN'] : op === 'ARRAY_CONTAINS' ? ['ARRAY_CONTAINS_ANY'] : [],
    );
    return;
  }
  checkScalar(value, vPath, elemType, field, op, opts, add);
}

function checkScalar(
  v: unknown,
  path: string,
  type: FieldType,
  field: CatalogField,
  op: FilterOperator,
  opts: MatchOptions,
  add: Add,
): boolean {
  const bad = (message: string, suggestions: string[] = []) => {
    add(path, 'INVALID_FILTER_VALUE', message, suggestions);
    return false;
  };
  switch (type) {
    case 'STRING':
      if (typeof v !== 'string') {
        return bad(`\`${field.name}\` compares text; expected a string, got ${describe(v)}.`, typeof v === 'number' ? [String(v)] : []);
      }
      if (v.length > FILTER_BOUNDS.valueLength)
        return bad(`A text value may hold at most ${FILTER_BOUNDS.valueLength} characters; got ${v.length}.`);
      if (op === 'LIKE') {
        const escape = badLikeEscape(v);
        if (escape) return bad(escape);
      }
      break;
    case 'INTEGER':
      if (typeof v !== 'number' || !Number.isSafeInteger(v))
        return bad(`\`${field.name}\` is an integer field; expected a whole number, got ${describe(v)}.`);
      return true;
    case 'NUMBER':
      if (typeof v !== 'number' || !Number.isFinite(v))
        return bad(`\`${field.name}\` is numeric; expected a finite number, got ${describe(v)}.`);
      return true;
    case 'BOOLEAN':
      if (typeof v !== 'boolean')
        return bad(`\`${field.name}\` is boolean; expected true or false, got ${describe(v)}.`, ['true', 'false']);
      return true;
    case 'DATE':
      if (typeof v !== 'string' || !isIsoDate(v))
        return bad(`\`${field.name}\` is a date; expected an ISO calendar date "YYYY-MM-DD", got ${describe(v)}.`);
      return true;
    default:
      return bad(`Unsupported field type ${type}.`);
  }
  if (field.stored_upper && !opts.caseInsensitive && VOCABULARY_OPS.has(op)) {
    // The catalog says the values are stored in upper case: an exact comparison with lower case can
    // never match. Say so (a hint from the catalog, not from the data), instead of a silent empty count.
    const text = opts.trim ? trimWs(v) : v;
    const upper = text.toUpperCase();
    if (text !== upper) {
      return bad(
        `\`${field.name}\` values are stored in upper case, so "${v}" matches nothing under an exact comparison; did you mean "${upper}"?` +
          ' Send text_comparison "case_insensitive" to compare without case.',
        [upper],
      );
    }
  }
  const vocab = vocabularyOf(field);
  if (!vocab || !VOCABULARY_OPS.has(op)) return true;
  const matches = matchVocabulary(v, vocab, opts);
  if (matches.length === 1) return true;
  if (matches.length > 1) {
    add(
      path,
      'AMBIGUOUS_ENUM_VALUE',
      `"${v}" matches several values of \`${field.name}\` when compared case-insensitively (${matches.join(', ')}); use an exact comparison with one of them.`,
      matches,
    );
    return false;
  }
  // Under an exact comparison a case slip is the likeliest mistake: offer the folded match first.
  const folded = matchVocabulary(v, vocab, { caseInsensitive: true, trim: true });
  const suggestions = [...new Set([...folded, ...nearest(opts.trim ? trimWs(v) : v, vocab)])].slice(0, 3);
  const hint = folded.length && !opts.caseInsensitive ? ' Values are case-sensitive unless `text_comparison` is "case_insensitive".' : '';
  add(
    path,
    'INVALID_ENUM_VALUE',
    `"${v}" is not a valid value of \`${field.name}\`.${hint}${suggestions.length ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''}`,
    suggestions,
  );
  return false;
}

/** A real calendar date in YYYY-MM-DD form (years 0001-9999); rejects 2021-02-30 and datetimes. */
export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const dt = new Date(Date.UTC(2000, mo - 1, d));
  dt.setUTCFullYear(y);
  return dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/** Order as DuckDB orders the bound values: numbers numerically, text by UTF-8 bytes. */
function compare(a: unknown, b: unknown, type: FieldType, trim: boolean): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const s = (x: unknown) => (trim ? trimWs(String(x)) : String(x));
  return type === 'DATE' ? (s(a) < s(b) ? -1 : s(a) > s(b) ? 1 : 0) : Buffer.compare(Buffer.from(s(a)), Buffer.from(s(b)));
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/**
 * LIKE patterns escape with `\`: an escape must be followed by `%`, `_` or `\` (a trailing escape, or
 * an escape of any other character, is an error the warehouse would raise at run time).
 */
export function badLikeEscape(pattern: string): string | null {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    const next = pattern[i + 1];
    if (next === undefined) return 'A LIKE pattern cannot end with the escape character `\\`; write `\\\\` for a literal backslash.';
    if (next !== '%' && next !== '_' && next !== '\\')
      return `In a LIKE pattern \`\\\` escapes only %, _ or \\; found \`\\${next}\` at position ${i + 1}.`;
    i++;
  }
  return null;
}
