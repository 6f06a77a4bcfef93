/**
 * Text helpers shared by the validator and the compiler, so the input side of every comparison is
 * folded and trimmed exactly one way.
 */

/**
 * The whitespace removed by `trim_whitespace`: space, TAB, LF, VT, FF, CR. DuckDB's one-argument
 * trim() removes spaces only, and JS trim() removes all Unicode spaces, so both sides use this
 * explicit set instead.
 */
export const TRIM_CHARS = ' \t\n\v\f\r';

/** The same set as a constant DuckDB expression (no input ever goes into it). */
export const SQL_TRIM_CHARS = "(' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))";

export function trimWs(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && TRIM_CHARS.includes(s[start]!)) start++;
  while (end > start && TRIM_CHARS.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/**
 * Case folding used when the input is matched in JS (closed vocabularies, bitmask bits, enum
 * validation). The SQL side folds with DuckDB lower(); both are full Unicode lower-casing and agree
 * except on context-dependent cases such as Greek final sigma (documented in index.ts).
 */
export function fold(s: string): string {
  return s.toLowerCase();
}

/** True when every code unit is 7-bit ASCII: the condition for the stored_upper shortcut. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Levenshtein distance over code points, used only to rank suggestions. */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/**
 * Up to `limit` candidates nearest to `input` (case-insensitive), closest first, ties by name.
 * Candidates farther than about half the input length are dropped: suggesting `age` for
 * `household_income_band` helps nobody.
 */
export function nearest(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = fold(input);
  const maxDistance = Math.max(2, Math.ceil([...needle].length / 2));
  const scored = new Map<string, number>();
  for (const c of candidates) {
    const d = editDistance(needle, fold(c));
    if (d <= maxDistance && (!scored.has(c) || scored.get(c)! > d)) scored.set(c, d);
  }
  return [...scored]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, limit)
    .map(([c]) => c);
}

/** Quote an SQL identifier; names come from the catalog, quoting only guards odd spellings. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
