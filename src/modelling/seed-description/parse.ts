/**
 * `seed_description` -> catalog filter conditions (spec 2 "Filter condition": {field, op, value}),
 * deterministically, with no language model: a left-to-right scan that at each word tries, in order,
 * a numeric phrase (numeric.ts), a ZIP code, the longest lexicon phrase (lexicon.ts: catalog
 * vocabularies, state names, synonyms), an upper-case state code ("CA", or "ca" right after
 * "in"/"from"), a negation ("not", "non", "without", ...), a stop word; anything else is reported
 * as not understood, so a review gate can show the marketer exactly what was and was not used.
 *
 * Combining (all conditions are ANDed, one filter group):
 * - values of one single-valued field merge into IN ("Texas or California", "married and single"
 *   alike: a person has one state), negated ones into NOT IN; a boolean asked both ways is dropped
 *   with a note;
 * - array values ("golf", "dog owners") are each ARRAY_CONTAINS (all required) unless joined by
 *   "or", which makes one ARRAY_CONTAINS_ANY; a negated array value cannot be expressed (the filter
 *   language has no "does not contain") and is reported, not guessed;
 * - numeric ranges stay separate conditions; a negated one is flipped (not over 65 -> age <= 65).
 */
import { STATE_CODES } from '../../identity/normalize/state.ts';
import type { ModelField } from '../types.ts';
import { lexiconOf, valid, type Lexicon } from './lexicon.ts';
import { matchNumeric } from './numeric.ts';
import { NEGATIONS, STOP_WORDS, type Meaning } from './synonyms.ts';
import { tokenize, type Token } from './text.ts';
import { combine, type SeedDescriptionParse, type Term } from './combine.ts';

export type { SeedDescriptionParse, SeedFilter, SeedFilterOp, SeedFilterValue, UnderstoodPhrase } from './combine.ts';

/** Two-letter codes that are also English words: a state only when written in capitals. */
const WORD_CODES = new Set([
  'in',
  'or',
  'me',
  'hi',
  'ok',
  'oh',
  'al',
  'co',
  'ma',
  'id',
  'pa',
  'de',
  'la',
  'mo',
  'ms',
  'mt',
  'as',
  'am',
  'ne',
  'wa',
  'va',
  'ga',
]);

export function parseSeedDescription(text: string, catalog: readonly ModelField[]): SeedDescriptionParse {
  const lex = lexiconOf(catalog);
  const tokens = tokenize(text);
  const terms: Term[] = [];
  const unrecognized: string[] = [];
  const notes: string[] = [];
  let negated = false;
  let or = false;
  for (let i = 0; i < tokens.length;) {
    const m = matchAt(tokens, i, lex);
    if (m) {
      const phrase = tokens
        .slice(i, i + m.length)
        .map((t) => t.raw)
        .join(' ');
      for (const meaning of m.meanings) terms.push({ meaning, negated, or, text: phrase });
      negated = false;
      or = false;
      i += m.length;
      continue;
    }
    const w = tokens[i]!.word;
    if (w === 'or') or = true;
    else if (w === 'and' || w === ',') or = false;
    else if (NEGATIONS.has(w)) negated = true;
    else if (!STOP_WORDS.has(w)) unrecognized.push(tokens[i]!.raw);
    i++;
  }
  return { ...combine(terms, notes, unrecognized), unrecognized, notes };
}

function matchAt(tokens: readonly Token[], i: number, lex: Lexicon): { meanings: readonly Meaning[]; length: number } | null {
  const numeric = matchNumeric(tokens, i);
  if (numeric && valid(numeric.meaning, lex.fields) && integral(numeric.meaning, lex))
    return { meanings: [numeric.meaning], length: numeric.length };
  const t = tokens[i]!;
  if (/^\d{5}$/.test(t.word)) {
    const zip: Meaning = { kind: 'value', field: 'zip5', values: [t.word] };
    if (valid(zip, lex.fields)) return { meanings: [zip], length: 1 };
  }
  for (let n = Math.min(lex.maxWords, tokens.length - i); n >= 1; n--) {
    const phrase = tokens
      .slice(i, i + n)
      .map((x) => x.word)
      .join(' ');
    const meanings = lex.phrases.get(phrase);
    if (meanings) return { meanings, length: n };
  }
  const code = t.raw.toUpperCase();
  const after = tokens[i - 1]?.word;
  if (
    t.raw.length === 2 &&
    STATE_CODES.has(code) &&
    (t.raw === code || ((after === 'in' || after === 'from') && !WORD_CODES.has(t.word)))
  ) {
    const state: Meaning = { kind: 'value', field: 'state', values: [code] };
    if (valid(state, lex.fields)) return { meanings: [state], length: 1 };
  }
  return null;
}

function integral(m: Meaning, lex: Lexicon): boolean {
  if (m.kind !== 'range' || lex.fields.get(m.field)?.type !== 'INTEGER') return true;
  return (Array.isArray(m.value) ? m.value : [m.value]).every((v) => Number.isSafeInteger(v));
}
