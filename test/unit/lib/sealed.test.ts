/**
 * The one sealing format of secrets at rest (src/lib/sealed.ts): a fixed vector opens, a round trip
 * holds, and a tampered, truncated or misplaced (other additional data, other key) value never opens.
 */
import { describe, expect, it } from 'vitest';
import { cachedDerivedKey, derivedKey, openValue, sealValue, SealedValueError } from '../../../src/lib/sealed.ts';

// HKDF-SHA256(empty salt) of "test-server-secret", info "unit-test/v1", checked with Python's hmac by hand.
const KEY_HEX = '0a674dcfb6d5a03c2efa96a8f82578da84b49ed51448de51fa5f906d3ce8aa4e';
// sealValue(key, 'hello, sealed world', 'rows:1') once: iv ‖ tag ‖ ciphertext, base64url.
const FIXED = 'DZ9GHNG8tYRksJ1e4xeSAY4BtEMYMtefkIx6kkhY1IZmtE79bRAYxrpfd6FfrOc';

describe('sealed values', () => {
  const key = derivedKey('test-server-secret', 'unit-test/v1');

  it('derives the fixed key and opens the fixed vector', () => {
    expect(key.toString('hex')).toBe(KEY_HEX);
    expect(openValue(key, FIXED, 'rows:1')).toBe('hello, sealed world');
  });

  it('round-trips with a fresh IV each time (12 + 16 bytes before the ciphertext)', () => {
    const a = sealValue(key, 'secret ✓', 'rows:2');
    const b = sealValue(key, 'secret ✓', 'rows:2');
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64url')).toHaveLength(12 + 16 + Buffer.byteLength('secret ✓'));
    expect(openValue(key, a, 'rows:2')).toBe('secret ✓');
  });

  it('refuses another row, another key, a flipped bit and a truncated value', () => {
    expect(() => openValue(key, FIXED, 'rows:2')).toThrow();
    expect(() => openValue(derivedKey('test-server-secret', 'unit-test/v2'), FIXED, 'rows:1')).toThrow();
    const raw = Buffer.from(FIXED, 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => openValue(key, raw.toString('base64url'), 'rows:1')).toThrow();
    expect(() => openValue(key, FIXED.slice(0, 20), 'rows:1')).toThrow(SealedValueError);
  });

  it('fetches a derived key once, and again after a failed fetch', async () => {
    let calls = 0;
    let fail = true;
    const get = cachedDerivedKey(
      async (name) => {
        calls += 1;
        if (fail) throw new Error('not yet');
        return `${name}-value`;
      },
      'some_key',
      'unit-test/v1',
    );
    await expect(get()).rejects.toThrow('not yet');
    fail = false;
    const first = await get();
    expect(await get()).toBe(first);
    expect(first.toString('hex')).toBe(derivedKey('some_key-value', 'unit-test/v1').toString('hex'));
    expect(calls).toBe(2);
  });
});
