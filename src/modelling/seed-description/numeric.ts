/**
 * Numeric phrases: "aged 30 to 45", "between 30 and 45", "over 65", "65+", "under 30", "35 or older",
 * "in their 30s", "income over $100k", "earning 50k-75k", "homes worth over 500k",
 * "households of 4 or more".
 *
 *   phrase := [cue] comparison [unit]
 *   comparison := comparator N | between N and N | from N to N | N to N | N plus | N and over|older|up|above
 *                 | N or older|more|over|above | N (after a cue: equality)
 *
 * The field comes from the cue ("age", "income", "earning", "homes worth", "households of") or the
 * unit ("years old"); without either, a money amount ($, k, thousand, million) is household income
 * and a plain number up to 120 is an age. "over" and "under" are strict, "at least", "or older" and
 * "plus" inclusive, as in ordinary speech.
 */
import type { Meaning } from './synonyms.ts';
import { parseDecade, parseNumber, type Token } from './text.ts';

type Op = '>=' | '<=' | '>' | '<' | 'BETWEEN' | '=';

const CUES: ReadonlyArray<readonly [string, string]> = [
  ['household income', 'household_income'],
  ['incomes', 'household_income'],
  ['income', 'household_income'],
  ['earning', 'household_income'],
  ['earnings', 'household_income'],
  ['earn', 'household_income'],
  ['earns', 'household_income'],
  ['making', 'household_income'],
  ['make', 'household_income'],
  ['makes', 'household_income'],
  ['salary', 'household_income'],
  ['home value', 'home_value'],
  ['home values', 'home_value'],
  ['homes worth', 'home_value'],
  ['home worth', 'home_value'],
  ['homes valued at', 'home_value'],
  ['homes valued', 'home_value'],
  ['household size', 'household_size'],
  ['households of', 'household_size'],
  ['household of', 'household_size'],
  ['families of', 'household_size'],
  ['years at address', 'length_of_residence'],
  ['length of residence', 'length_of_residence'],
  ['aged', 'age'],
  ['ages', 'age'],
  ['age', 'age'],
];

const COMPARATORS: ReadonlyArray<readonly [string, Op]> = [
  ['more than', '>'],
  ['greater than', '>'],
  ['older than', '>'],
  ['higher than', '>'],
  ['over', '>'],
  ['above', '>'],
  ['at least', '>='],
  ['less than', '<'],
  ['younger than', '<'],
  ['lower than', '<'],
  ['under', '<'],
  ['below', '<'],
  ['at most', '<='],
  ['up to', '<='],
];

const UNITS: ReadonlyArray<readonly [string, string | null]> = [
  ['years old', 'age'],
  ['year olds', 'age'],
  ['year old', 'age'],
  ['yrs old', 'age'],
  ['years of age', 'age'],
  ['yo', 'age'],
  ['years', 'age'],
  ['people', null],
  ['persons', null],
  ['members', null],
];

const INCLUSIVE_AFTER: ReadonlyArray<readonly [string, Op]> = [
  ['and over', '>='],
  ['and older', '>='],
  ['and up', '>='],
  ['and above', '>='],
  ['or older', '>='],
  ['or more', '>='],
  ['or over', '>='],
  ['or above', '>='],
  ['plus', '>='],
  ['or younger', '<='],
  ['or less', '<='],
  ['and under', '<='],
  ['and younger', '<='],
];

/** Length of the first listed phrase that starts at tokens[i], with its payload. */
function words<T>(tokens: readonly Token[], i: number, list: ReadonlyArray<readonly [string, T]>): { len: number; value: T } | null {
  for (const [phrase, value] of list) {
    const parts = phrase.split(' ');
    if (parts.every((p, k) => tokens[i + k]?.word === p)) return { len: parts.length, value };
  }
  return null;
}

export interface NumericMatch {
  meaning: Meaning;
  length: number;
}

export function matchNumeric(tokens: readonly Token[], start: number): NumericMatch | null {
  let i = start;
  const cue = words(tokens, i, CUES);
  if (cue) i += cue.len;
  if (tokens[i]?.word === 'in' && tokens[i + 1]?.word === 'their') i += 2;
  const decade = tokens[i] ? parseDecade(tokens[i]!.word) : null;
  if (decade !== null && (!cue || cue.value === 'age')) {
    return finish(tokens, start, i + 1, cue?.value ?? null, 'BETWEEN', [decade, decade + 9], false);
  }
  let op: Op | null = null;
  const comparator = words(tokens, i, COMPARATORS);
  if (comparator) {
    op = comparator.value;
    i += comparator.len;
  }
  let between = false;
  if (!op && (tokens[i]?.word === 'between' || tokens[i]?.word === 'from')) {
    between = true;
    i += 1;
  }
  const a = parseNumber(tokens, i);
  if (!a) return null;
  i += a.length;
  if (op) return finish(tokens, start, i, cue?.value ?? null, op, a.value, a.money);
  const joiner = tokens[i]?.word;
  if (joiner === 'to' || (between && joiner === 'and')) {
    const b = parseNumber(tokens, i + 1);
    if (b) {
      const money = a.money || b.money;
      return finish(tokens, start, i + 1 + b.length, cue?.value ?? null, 'BETWEEN', [a.value, b.value], money);
    }
  }
  if (between) return null;
  const after = words(tokens, i, INCLUSIVE_AFTER);
  if (after) return finish(tokens, start, i + after.len, cue?.value ?? null, after.value, a.value, a.money);
  const unit = words(tokens, i, UNITS);
  if (cue || unit?.value) return finish(tokens, start, i, cue?.value ?? null, '=', a.value, a.money);
  return null;
}

function finish(
  tokens: readonly Token[],
  start: number,
  end: number,
  cueField: string | null,
  op: Op,
  value: number | [number, number],
  money: boolean,
): NumericMatch | null {
  const unit = words(tokens, end, UNITS);
  const field =
    cueField ??
    unit?.value ??
    (money ? 'household_income' : (Array.isArray(value) ? value : [value]).every((x) => x <= 120) ? 'age' : null);
  if (!field) return null;
  if (field === 'age' && money) return null;
  const length = end - start + (unit ? unit.len : 0);
  if (Array.isArray(value)) {
    const [lo, hi] = value[0] <= value[1] ? value : [value[1], value[0]];
    return { meaning: { kind: 'range', field, op: 'BETWEEN', value: [lo, hi] }, length };
  }
  return { meaning: { kind: 'range', field, op: op as Exclude<Op, 'BETWEEN'>, value }, length };
}
