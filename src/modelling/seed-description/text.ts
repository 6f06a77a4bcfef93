/**
 * Tokens of a seed description. Lower-cased words for matching, with the original spelling kept (an
 * upper-case "CA" is a state code, a lower-case "ca" is not necessarily). Normalizations, in order:
 * thousands separators go ("100,000" -> "100000"), number ranges become words ("30-45" -> "30 to 45",
 * "65+" -> "65 plus"), apostrophes go ("bachelor's" -> "bachelors", "don't" -> "dont"), hyphens
 * between words split them ("non-homeowners" -> "non homeowners"), and any other punctuation
 * separates words; a comma is kept as its own token because it joins lists like "and" does.
 */

export interface Token {
  /** Lower case, as matched. */
  word: string;
  /** As written. */
  raw: string;
}

export function tokenize(text: string): Token[] {
  const normalized = text
    .normalize('NFKC')
    .replace(/(\d),(\d{3})\b/g, '$1$2')
    .replace(/(\d[kKmM]?)\s*[-–—]\s*(\$?\d)/g, '$1 to $2')
    .replace(/(\d[kKmM]?)\s*\+/g, '$1 plus')
    .replace(/['’]/g, '')
    .replace(/,/g, ' , ');
  const out: Token[] = [];
  for (const raw of normalized.split(/[^A-Za-z0-9$.,]+/)) {
    const trimmed = raw.replace(/^\.+|\.+$/g, '');
    if (trimmed === '') continue;
    out.push({ word: trimmed.toLowerCase(), raw: trimmed });
  }
  return out;
}

export interface ParsedNumber {
  value: number;
  /** Written as money ($, k, thousand, million): an income or a home value, never an age. */
  money: boolean;
  /** Tokens consumed (the number and its scale word, if any). */
  length: number;
}

const SCALE_WORDS: Record<string, number> = { thousand: 1_000, k: 1_000, million: 1_000_000, m: 1_000_000, mm: 1_000_000 };

/** A number at tokens[i]: "45", "$100k", "1.5m", "250 thousand", "$2 million". */
export function parseNumber(tokens: readonly Token[], i: number): ParsedNumber | null {
  const t = tokens[i];
  if (!t) return null;
  const m = /^(\$)?(\d+(?:\.\d+)?)(k|m|mm)?$/.exec(t.word);
  if (!m) return null;
  let value = Number(m[2]);
  let money = Boolean(m[1] || m[3]);
  if (m[3]) value *= SCALE_WORDS[m[3]]!;
  let length = 1;
  const next = tokens[i + 1]?.word;
  if (!m[3] && next && SCALE_WORDS[next] && next.length > 1) {
    value *= SCALE_WORDS[next]!;
    money = true;
    length = 2;
  }
  return Number.isFinite(value) ? { value: Math.round(value * 100) / 100, money, length } : null;
}

/** "30s" or "thirties" -> 30 (a decade of age). */
export function parseDecade(word: string): number | null {
  const m = /^([1-9]0)s$/.exec(word);
  if (m) return Number(m[1]);
  const named = ['teens', 'twenties', 'thirties', 'forties', 'fifties', 'sixties', 'seventies', 'eighties', 'nineties'].indexOf(word);
  return named > 0 ? (named + 1) * 10 : null;
}
