/**
 * Shared text folding: Unicode compatibility forms, accents and case. Matching compares
 * upper-case ASCII, so "José", "JOSE" and "Jose\u0301" all become "JOSE".
 */

// Letters that NFD does not decompose into base + combining mark.
const SPECIAL: Record<string, string> = {
  ß: 'SS',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'AE',
  Œ: 'OE',
  œ: 'OE',
  Ø: 'O',
  ø: 'O',
  Ł: 'L',
  ł: 'L',
  Đ: 'D',
  đ: 'D',
  Ð: 'D',
  ð: 'D',
  Þ: 'TH',
  þ: 'TH',
  ı: 'I',
  Ħ: 'H',
  ħ: 'H',
};

/** Printable ASCII only: nothing to decompose, strip or map but case, backticks and runs of spaces. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/** NFKC (full-width, ligatures), strip combining marks, map special letters, upper-case. */
export function foldToAsciiUpper(raw: string): string {
  // Most input is plain ASCII; the Unicode passes below cost most of the normalizers' time on it.
  if (PRINTABLE_ASCII.test(raw)) {
    let v = raw.toUpperCase();
    if (v.includes('`')) v = v.replace(/`/g, "'");
    if (v.includes('  ')) v = v.replace(/ {2,}/g, ' ');
    return v.trim();
  }
  return (
    raw
      .normalize('NFKC')
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .replace(/[ßẞÆæŒœØøŁłĐđÐðÞþıĦħ]/g, (c) => SPECIAL[c] ?? c)
      .toUpperCase()
      // Curly quotes and prime marks to plain apostrophe so later rules see one character.
      .replace(/[\u2018\u2019\u201B\u2032\u02BC`´]/g, "'")
      // Every Unicode dash to ASCII hyphen.
      .replace(/[\u2010-\u2015\u2212]/g, '-')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
