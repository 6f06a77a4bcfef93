/**
 * The common US spellings normalizePhone reads without libphonenumber (fastNanp) against the long way
 * (parsePhone: libphonenumber's parse, isPossible and the NANP rule), over every area code and a spread of exchanges.
 */
import { describe, expect, it } from 'vitest';
import { fastNanp, normalizePhone, parsePhone } from '../../../src/identity/normalize/phone.ts';

const shapes: ((a: string, e: string, n: string) => string)[] = [
  (a, e, n) => `+1${a}${e}${n}`,
  (a, e, n) => `${a}${e}${n}`,
  (a, e, n) => `1${a}${e}${n}`,
  (a, e, n) => `(${a}) ${e}-${n}`,
  (a, e, n) => `(${a})${e}-${n}`,
  (a, e, n) => `${a}-${e}-${n}`,
  (a, e, n) => `${a}.${e}.${n}`,
  (a, e, n) => `${a} ${e} ${n}`,
];

describe('fastNanp', () => {
  it('answers what libphonenumber answers for every area code and a spread of exchanges in each common spelling', () => {
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % 10000;
    let quick = 0;
    for (let area = 0; area < 1000; area++) {
      for (let exchange = 0; exchange < 1000; exchange += 13) {
        const a = String(area).padStart(3, '0');
        const e = String(exchange).padStart(3, '0');
        const n = String(rnd()).padStart(4, '0');
        const shape = shapes[(area + exchange) % shapes.length]!;
        const text = shape(a, e, n);
        const fast = fastNanp(text);
        const long = parsePhone(text);
        if (fast !== null) {
          quick++;
          expect(fast, text).toBe(long.value);
        }
        expect(normalizePhone(text), text).toEqual(long);
      }
    }
    expect(quick).toBeGreaterThan(45_000); // every number whose area code and exchange start with 2-9
  });

  it('leaves other spellings, other countries and impossible numbers to libphonenumber', () => {
    for (const text of [
      '+4155552671',
      '+44 20 7946 0958',
      '415-555.2671',
      '415555267',
      '4155552671 x12',
      '(415)-555-2671',
      '1-800-FLOWERS',
      '+1 415 555 2671',
    ]) {
      expect(fastNanp(text), text).toBeNull();
    }
    expect(fastNanp('0155552671')).toBeNull(); // area code starting with 0: the long way gives the warning
    expect(normalizePhone('0155552671').warning?.code).toBe('phone_impossible');
    expect(fastNanp('4151552671')).toBeNull(); // exchange starting with 1
    expect(fastNanp('(415) 555-2671')).toBe('+14155552671');
    expect(normalizePhone(' +14155552671 ').value).toBe('+14155552671');
  });
});
