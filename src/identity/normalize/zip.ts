/**
 * ZIP / ZIP+4 parsing. Returns zip5 and zip4 separately.
 *
 * Repairs, each reported with a warning code but kept usable:
 * - 4 digits ("2134") or 8 digits ("21341234"): a leading zero lost by spreadsheets that typed
 *   the column as a number (all such ZIPs are New England / NJ / PR, 0xxxx). It is restored.
 * - a trailing ".0" from the same spreadsheets is dropped silently.
 * Anything else (3 digits, letters, Canadian postal codes) is rejected. ZIP+4 "0000" is treated
 * as absent since it is never a real add-on.
 */
import { fail, ok, type Normalized } from './types.ts';

export interface Zip {
  zip5: string;
  zip4: string | null;
}

export function normalizeZip(raw: string): Normalized<Zip> {
  let v = raw.normalize('NFKC').trim().replace(/\.0+$/, '');
  if (v === '') return fail('empty', 'zip is empty');
  v = v.replace(/\s*[-\u2013\u2014]\s*|\s+/g, '-');
  let m = /^(\d{5})(?:-?(\d{4}))?$/.exec(v);
  let repaired = false;
  if (!m) {
    m = /^(\d{4})(?:-?(\d{4}))?$/.exec(v);
    if (m) repaired = true;
  }
  if (!m) return fail('zip_malformed', `zip "${raw.trim()}" is not 5 or 9 digits`);
  const zip5 = repaired ? `0${m[1]}` : m[1]!;
  if (zip5 === '00000') return fail('zip_malformed', 'zip 00000 does not exist');
  const zip4 = m[2] && m[2] !== '0000' ? m[2] : null;
  const value = { zip5, zip4 };
  return repaired ? ok(value, { code: 'zip_leading_zero_restored', message: `zip "${raw.trim()}" read as ${zip5}` }) : ok(value);
}
