import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacKey8 } from '../../src/identity/hmac-key8.ts';
import { hmacKey8Simd, SIMD_BATCH } from '../../src/identity/hmac-key8-simd.ts';
import {
  graphPersonIdBatchEncoder,
  graphPersonIdHashes,
  graphPersonIdPrefix,
  personIdsFromHashes,
} from '../../src/identity/person-id-batch.ts';
import { graphPersonIdEncoder, graphPersonIdKeys } from '../../src/identity/person-id.ts';

const org = { orgId: 'org_fixed', orgClientCode: 'ACME', secret: 'test-secret' };

describe('batched tier 01 ids', () => {
  it('equal fixed expected ids and the per-row encoder, including 64-bit edge keys', () => {
    const keys = BigInt64Array.from([1n, 12345n, 2n ** 63n - 1n, 0n, 4294967295n, 4294967296n, 10_000_000n]);
    const ids = graphPersonIdBatchEncoder(org).encode(keys, keys.length);
    expect(ids.slice(0, 3)).toEqual([
      'ACME_01_33RYSMT6EU2L4IVNFEI7ACQCPU',
      'ACME_01_2PZWFL26OVUFVFHKDGP5OBR2HI',
      'ACME_01_LCDRYUROYKF563F35FFDRMQBAM',
    ]);
    const perRow = graphPersonIdEncoder(org);
    expect(ids).toEqual([...keys].map((k) => perRow(k)));
  });

  it('equal the per-row encoder over many random keys and several batches; skipped rows are null', () => {
    const encoder = graphPersonIdBatchEncoder({ ...org, secret: Buffer.from('binary-secret') });
    const perRow = graphPersonIdEncoder({ ...org, secret: Buffer.from('binary-secret') });
    for (const n of [1, 2048, 5000]) {
      const keys = new BigInt64Array(randomBytes(8 * n).buffer).map((k) => (k < 0n ? -k : k));
      const ids = encoder.encode(keys, n, (i) => i % 7 !== 3);
      expect(ids).toEqual([...keys].map((k, i) => (i % 7 === 3 ? null : perRow(k))));
    }
  });

  it("hashes (the id worker's part) plus the prefix give the same fixed ids", () => {
    const keys = BigInt64Array.from([1n, 12345n, 2n ** 63n - 1n]);
    const { encKey, macKey } = graphPersonIdKeys(org);
    const text = graphPersonIdHashes(encKey, macKey).hashes(keys, keys.length);
    expect(text.toString('latin1')).toBe('33RYSMT6EU2L4IVNFEI7ACQCPU2PZWFL26OVUFVFHKDGP5OBR2HILCDRYUROYKF563F35FFDRMQBAM');
    expect(personIdsFromHashes(graphPersonIdPrefix('ACME'), text, 3, (i) => i !== 1)).toEqual([
      'ACME_01_33RYSMT6EU2L4IVNFEI7ACQCPU',
      null,
      'ACME_01_LCDRYUROYKF563F35FFDRMQBAM',
    ]);
    expect(() => graphPersonIdPrefix('acme')).toThrow();
  });

  it('the JS HMAC equals node:crypto for 8-byte messages, short and long keys', () => {
    for (const key of [randomBytes(32), randomBytes(7), randomBytes(100)]) {
      const h = hmacKey8(key);
      const out = new Int32Array(2);
      for (let i = 0; i < 200; i++) {
        const msg = randomBytes(8);
        h.tag(msg.readInt32BE(0), msg.readInt32BE(4), out);
        const expected = createHmac('sha256', key).update(msg).digest();
        expect([out[0], out[1]]).toEqual([expected.readInt32BE(0), expected.readInt32BE(4)]);
      }
    }
  });

  it('the four-lane WebAssembly HMAC equals node:crypto, for any count (not only multiples of four) and 64-bit edge keys', () => {
    for (const key of [randomBytes(32), randomBytes(100)]) {
      const simd = hmacKey8Simd(key);
      // Node 24 runs WebAssembly SIMD: the batched path must be the one tested here.
      expect(simd).not.toBeNull();
      for (const n of [1, 3, 4, 5, 4096]) {
        const keys = new BigInt64Array(randomBytes(8 * n).buffer);
        if (n === 5) keys.set([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 4294967296n]);
        const out = new Int32Array(2 * n);
        simd!.tags(keys, n, out);
        for (let i = 0; i < n; i++) {
          const msg = Buffer.alloc(8);
          msg.writeBigInt64BE(keys[i]!);
          const expected = createHmac('sha256', key).update(msg).digest();
          expect([out[2 * i], out[2 * i + 1]]).toEqual([expected.readInt32BE(0), expected.readInt32BE(4)]);
        }
      }
      expect(() => simd!.tags(new BigInt64Array(SIMD_BATCH + 1), SIMD_BATCH + 1, new Int32Array(2 * SIMD_BATCH + 2))).toThrow(RangeError);
    }
  });

  it('hashes with and without the WebAssembly HMAC are the same, across its 4,096-key batches', () => {
    const { encKey, macKey } = graphPersonIdKeys(org);
    const keys = BigInt64Array.from({ length: 9000 }, (_, i) => BigInt(i) * 1_000_003n + 1n);
    const simd = graphPersonIdHashes(encKey, macKey).hashes(keys, keys.length).toString('latin1');
    const scalar = graphPersonIdHashes(encKey, macKey, { simd: false }).hashes(keys, keys.length).toString('latin1');
    expect(simd).toBe(scalar);
    expect(simd.slice(0, 26)).toBe(graphPersonIdEncoder(org)(1n).slice('ACME_01_'.length));
  });
});
