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
  A: '2',
  B: '2',
  C: '2',
  D: '3',
  E: '3',
  F: '3',
  G: '4',
  H: '4',
  I: '4',
  J: '5',
  K: '5',
  L: '5',
  M: '6',
  N: '6',
  O: '6',
  P: '7',
  Q: '7',
  R: '7',
  S: '7',
  T: '8',
  U: '8',
  V: '8',
  W: '9',
  X: '9',
  Y: '9',
  Z: '9',
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

/**
 * The spellings of a US number that lists carry most ("+14155552671", "4155552671", "14155552671",
 * "(415) 555-2671", "415-555-2671", "415.555.2671", "415 555 2671"), read without libphonenumber, which
 * costs several microseconds a number: for them it answers "+1" and the ten digits whenever the area code
 * and exchange start with 2-9 (test/unit/identity/phone-fast.test.ts compares the two over every area code
 * and exchange). Anything else, and every failure, goes the long way, so warnings are unchanged.
 */
const NANP_SHAPES = /^(?:\+1|1)?(\d{10})$|^\((\d{3})\) ?(\d{3})-(\d{4})$|^(\d{3})([-. ])(\d{3})\6(\d{4})$/;

export function fastNanp(v: string): string | null {
  const m = NANP_SHAPES.exec(v);
  if (!m) return null;
  const ten = m[1] ?? `${m[2] ?? m[5]}${m[3] ?? m[7]}${m[4] ?? m[8]}`;
  return /^[2-9]\d{2}[2-9]/.test(ten) ? `+1${ten}` : null;
}

export function normalizePhone(raw: string, defaultCountry: CountryCode = 'US'): Normalized<string> {
  const quick = defaultCountry === 'US' ? fastNanp(raw.trim()) : null;
  return quick ? ok(quick) : parsePhone(raw, defaultCountry);
}

/** normalizePhone the long way, through libphonenumber (exported for the test that compares the two). */
export function parsePhone(raw: string, defaultCountry: CountryCode = 'US'): Normalized<string> {
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
