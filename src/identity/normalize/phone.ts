/**
 * Phone normalization to E.164 with libphonenumber-js, defaulting to US numbering.
 *
 * Extensions are dropped (they identify a desk, not a person). Numbers that cannot exist are
 * rejected: wrong length for the country (`isPossible`), and for NANP numbers an area code or
 * exchange starting with 0 or 1, which the plan never assigns. We deliberately do NOT require
 * `isValid()`: its range tables lag new assignments and would reject real numbers.
 * The hash input is the E.164 string including the leading '+', e.g. "+14155552671".
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { sha256Hex } from './hash.ts';
import { fail, ok, type Normalized } from './types.ts';

const KEYPAD: Record<string, string> = {
  A: '2', B: '2', C: '2', D: '3', E: '3', F: '3', G: '4', H: '4', I: '4', J: '5', K: '5', L: '5',
  M: '6', N: '6', O: '6', P: '7', Q: '7', R: '7', S: '7', T: '8', U: '8', V: '8', W: '9', X: '9',
  Y: '9', Z: '9',
};
const NOT_VANITY = new Set(['EXT', 'EXTN', 'EXTENSION', 'TEL', 'PHONE', 'CELL', 'FAX']);

/** "1-800-FLOWERS" -> "1-800-3569377"; leaves extension markers ("x12", "ext.") alone. */
function vanityToDigits(raw: string): string {
  if (!/\d{3}/.test(raw.replace(/\D/g, ''))) return raw;
  return raw.replace(/[A-Za-z]{3,}/g, (word) => {
    const up = word.toUpperCase();
    if (NOT_VANITY.has(up)) return word;
    return [...up].map((c) => KEYPAD[c] ?? c).join('');
  });
}

export function normalizePhone(raw: string, defaultCountry: CountryCode = 'US'): Normalized<string> {
  let v = raw.normalize('NFKC').trim();
  if (v === '') return fail('empty', 'phone is empty');
  // Spreadsheet exports turn numbers into "4155552671.0" or "4.155552671E9".
  if (/^\d+\.0+$/.test(v)) v = v.replace(/\.0+$/, '');
  if (/^\d(?:\.\d+)?e\+?\d+$/i.test(v)) v = BigInt(Math.round(Number(v))).toString();
  // International "00" prefix is common outside the US; libphonenumber only knows 011 for US.
  if (/^00[1-9]/.test(v.replace(/[\s().-]/g, ''))) v = '+' + v.replace(/[\s().-]/g, '').slice(2);
  v = vanityToDigits(v);
  if (!/\d/.test(v)) return fail('phone_malformed', 'phone has no digits');
  const parsed = parsePhoneNumberFromString(v, defaultCountry);
  if (!parsed) return fail('phone_malformed', 'phone could not be parsed');
  if (!parsed.isPossible()) {
    return fail('phone_impossible', 'phone has the wrong number of digits for its country');
  }
  if (parsed.countryCallingCode === '1') {
    const nsn = parsed.nationalNumber;
    if (/^[01]/.test(nsn) || /^\d{3}[01]/.test(nsn)) {
      return fail('phone_impossible', 'NANP area code and exchange cannot start with 0 or 1');
    }
  }
  return ok(parsed.number);
}

/** Lowercase-hex SHA-256 of the E.164 string (with '+'). */
export function phoneSha256(e164: string): string {
  return sha256Hex(e164);
}
