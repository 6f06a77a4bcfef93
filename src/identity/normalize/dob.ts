/**
 * Date of birth parsing.
 *
 * Accepted: ISO (1980-03-04, 1980/3/4, with a time part), US numeric month/day/year
 * (03/04/1980, 3-4-80, 03.04.1980), day/month only when the first number cannot be a month
 * (25/12/1980), compact 19800304 (or 03041980 when it does not start with 19/20), and month
 * names in either order ("4 March 1980", "March 4th, 1980", "04-Mar-1980").
 *
 * Two-digit years pivot on today: yy <= current yy -> 20yy, otherwise 19yy (a DOB is never in
 * the future, so "03/04/80" is 1980 and "01/02/05" is 2005).
 * Rejected with a warning: impossible calendar dates (Feb 30), future dates, ages over 120.
 */
import { fail, ok, type Normalized } from './types.ts';

export interface Dob {
  /** YYYY-MM-DD */
  iso: string;
  year: number;
  month: number;
  day: number;
}

const MONTHS: Record<string, number> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  SEPT: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};

function monthNumber(word: string): number | null {
  const w = word.toUpperCase();
  return MONTHS[w.slice(0, 4) === 'SEPT' ? 'SEPT' : w.slice(0, 3)] ?? null;
}

function fullYear(y: string, today: Date): number {
  if (y.length === 4) return Number(y);
  const yy = Number(y);
  const nowYy = today.getUTCFullYear() % 100;
  const century = today.getUTCFullYear() - nowYy;
  return yy <= nowYy ? century + yy : century - 100 + yy;
}

type Ymd = [year: number, month: number, day: number];

function parseParts(s: string, today: Date): Ymd | null {
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ].*)?$/.exec(s);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  m = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})$/.exec(s);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const y = fullYear(m[3]!, today);
    // US month/day first; day/month only when the first number cannot be a month.
    return a > 12 && b <= 12 ? [y, b, a] : [y, a, b];
  }
  m = /^(\d{8})$/.exec(s);
  if (m) {
    const d = m[1]!;
    if (/^(19|20)/.test(d)) return [Number(d.slice(0, 4)), Number(d.slice(4, 6)), Number(d.slice(6))];
    return [Number(d.slice(4)), Number(d.slice(0, 2)), Number(d.slice(2, 4))];
  }
  const words = s
    .replace(/,/g, ' ')
    .replace(/(\d)(ST|ND|RD|TH)\b/gi, '$1')
    .split(/[\s/.-]+/)
    .filter(Boolean);
  if (words.length === 3) {
    const [w0, w1, w2] = words as [string, string, string];
    let mo = monthNumber(w0);
    if (mo && /^\d{1,2}$/.test(w1) && /^\d{2,4}$/.test(w2)) return [fullYear(w2, today), mo, Number(w1)];
    mo = monthNumber(w1);
    if (mo && /^\d{1,2}$/.test(w0) && /^\d{2,4}$/.test(w2)) return [fullYear(w2, today), mo, Number(w0)];
    if (mo && /^\d{4}$/.test(w0) && /^\d{1,2}$/.test(w2)) return [Number(w0), mo, Number(w2)];
  }
  return null;
}

export function parseDob(raw: string, today: Date = new Date()): Normalized<Dob> {
  const s = raw.normalize('NFKC').trim();
  if (s === '') return fail('empty', 'dob is empty');
  const parts = parseParts(s, today);
  if (!parts) return fail('dob_unparseable', `dob "${s}" is not a recognised date`);
  const [year, month, day] = parts;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return fail('dob_invalid', `dob "${s}" is not a real calendar date`);
  }
  const todayUtc = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  if (date.getTime() > todayUtc) return fail('dob_future', `dob "${s}" is in the future`);
  const oldest = Date.UTC(today.getUTCFullYear() - 120, today.getUTCMonth(), today.getUTCDate());
  if (date.getTime() < oldest) return fail('dob_too_old', `dob "${s}" gives an age over 120`);
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return ok({ iso, year, month, day });
}

/**
 * A dob without its day, as CRM exports often carry it: "1985-03", "1985/3", "03/1985", "3-1985", "Mar 1985",
 * "March, 1985" -> "1985-03"; a year alone "1985" -> "1985". Null when it is not one of those, or is in the
 * future or over 120 years ago. Only tried where parseDob finds no whole date (record.ts: `dobPartial`).
 */
export function parsePartialDob(raw: string, today: Date = new Date()): string | null {
  const s = raw.normalize('NFKC').trim().replace(/,/g, ' ').replace(/\s+/g, ' ');
  let year: number;
  let month: number | null = null;
  let m = /^(\d{4})$/.exec(s);
  if (m) year = Number(m[1]);
  else if ((m = /^(\d{4})[-/.](\d{1,2})$/.exec(s))) [year, month] = [Number(m[1]), Number(m[2])];
  else if ((m = /^(\d{1,2})[-/.](\d{4})$/.exec(s))) [year, month] = [Number(m[2]), Number(m[1])];
  else if ((m = /^([A-Za-z]+)\.? (\d{4})$/.exec(s)) && monthNumber(m[1]!) && m[1]!.length >= 3)
    [year, month] = [Number(m[2]), monthNumber(m[1]!)!];
  else return null;
  if (month !== null && (month < 1 || month > 12)) return null;
  const nowYear = today.getUTCFullYear();
  const nowMonth = today.getUTCMonth() + 1;
  if (year > nowYear || (year === nowYear && month !== null && month > nowMonth) || year < nowYear - 120) return null;
  return month === null ? String(year) : `${year}-${String(month).padStart(2, '0')}`;
}
