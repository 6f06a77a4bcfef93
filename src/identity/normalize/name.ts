/**
 * Name text canonicalization: upper-case ASCII, no punctuation, single spaces.
 *
 * Apostrophes and periods are removed without a space (O'NEIL -> ONEIL, ST. -> ST) because
 * lists spell them both ways; hyphens and other punctuation become a space
 * (JEAN-LUC -> JEAN LUC, SMITH-JONES -> SMITH JONES) so a hyphenated and a spaced spelling agree.
 */
import { boundedMemo } from '../../lib/memo.ts';
import { foldToAsciiUpper } from './text.ts';

export function canonicalName(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  // Most names are ASCII letters alone ("Smith", "JOHN"): their canonical form is the upper case, with no rule
  // below applying; cheaper than the memo's lookup.
  return LETTERS_ONLY.test(raw) ? raw.toUpperCase() : canonicalText(raw);
}

const LETTERS_ONLY = /^[A-Za-z]+$/;

// Memoized: a file repeats its names, and the regex chain below is most of a row's name work.
const canonicalText = boundedMemo((raw: string): string | null => {
  const v = foldToAsciiUpper(raw)
    .replace(/\b([OD])' +(?=[A-Z])/g, '$1') // "O' Brien" -> OBRIEN, same as "O'Brien"
    .replace(/['.]/g, '')
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // Digits only (e.g. "123") are not a name.
  return v === '' || !/[A-Z]/.test(v) ? null : v;
});
