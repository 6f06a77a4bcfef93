import { describe, expect, it } from 'vitest';
import { normalizeMatchInput } from '../../../src/identity/normalize/index.ts';
import { decodeGraphPersonId, deriveContinuityId, encodeGraphPersonId, graphPersonIdEncoder } from '../../../src/identity/person-id.ts';
import { computeSignature } from '../../../src/webhook-receiver/verify.ts';

/**
 * Golden vectors, computed outside this code base (Python's hmac, hashlib and cryptography modules
 * from the construction documented in src/identity/person-id.ts and spec 6). A change to key
 * derivation or encoding fails here instead of silently invalidating every id customers have stored.
 */
const SECRET = 'golden-person-id-secret';
const ORG = 'org_Golden0000000000001';

describe('golden vectors', () => {
  it('tier-01 ids', () => {
    const expected: [bigint, string][] = [
      [1n, 'GOLD_01_3CGRMI5AVQFVHCB47XMDNO6ZOU'],
      [123456789n, 'GOLD_01_64ER4EQGSHD26MMZEPENYFGIRM'],
      [2n ** 63n + 5n, 'GOLD_01_Q5ZUGHCBYWZOHHOHZZ442BKNMM'],
    ];
    const encode = graphPersonIdEncoder({ orgId: ORG, orgClientCode: 'GOLD', secret: SECRET });
    for (const [key, id] of expected) {
      expect(encode(key)).toBe(id);
      expect(encodeGraphPersonId({ orgId: ORG, orgClientCode: 'GOLD', secret: SECRET, personKey: key })).toBe(id);
      expect(decodeGraphPersonId(id, { orgId: ORG, secret: SECRET, orgClientCode: 'GOLD' })).toBe(key);
    }
  });

  it('continuity ids (tiers 02 and 03) of a normalized row', () => {
    const today = new Date('2026-11-23T00:00:00Z');
    const email = normalizeMatchInput({ email: ' Ann.Lee@Example.com ' }, { position: 1, today });
    expect(deriveContinuityId({ orgId: ORG, orgClientCode: 'GOLD', secret: SECRET, record: email })).toBe(
      'GOLD_02_H5HZ6N6A4KITEEW74YZ54MM4YMZAFHL5',
    );
    const phone = normalizeMatchInput({ phone: '+1 (312) 555-0142' }, { position: 1, today });
    expect(deriveContinuityId({ orgId: ORG, orgClientCode: 'GOLD', secret: SECRET, record: phone })).toBe(
      'GOLD_03_HO7BTR42KFZHLNQ2DS5M6BVBOILKKXTT',
    );
  });

  it('webhook signature (spec 6)', () => {
    expect(computeSignature('whsec_golden', 1700000000, '{"id":"evt_golden","type":"segment.ready"}')).toBe(
      'v1=4902169f57df9507eaca12dcae9258d4dc9f771573fc1b5efacbaed4744055c0',
    );
  });
});
