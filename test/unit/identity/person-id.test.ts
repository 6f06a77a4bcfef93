import { describe, expect, it } from 'vitest';
import {
  continuitySignal,
  decodeGraphPersonId,
  decodeIssuedPersonId,
  deriveContinuityId,
  encodeGraphPersonId,
  graphPersonIdEncoder,
  parsePersonId,
} from '../../../src/identity/person-id.ts';
import { normalizeMatchInput } from '../../../src/identity/normalize/record.ts';

const secret = 'server-secret-for-tests';
const acme = { orgId: 'org_acme', orgClientCode: 'ACME', secret };
const globex = { orgId: 'org_globex', orgClientCode: 'GLBX', secret };
const today = new Date('2025-06-15T00:00:00Z');

describe('graph person ids (tier 01)', () => {
  it('a reused encoder gives, id for id, what one-off encoding gives (one AES context, ECB blocks)', () => {
    const encode = graphPersonIdEncoder(acme);
    const keys = [1n, 2n, 987654321n, 2n ** 63n, 5n, 1n];
    expect(keys.map((k) => encode(k))).toEqual(keys.map((personKey) => encodeGraphPersonId({ ...acme, personKey })));
    for (const k of keys) expect(decodeGraphPersonId(encode(k), acme)).toBe(k);
  });

  it('carries the issuing match level (decision 051): I ids as before, other levels under their own key, found on decoding', () => {
    const asI = encodeGraphPersonId({ ...acme, personKey: 42n });
    expect(encodeGraphPersonId({ ...acme, personKey: 42n, level: 'I' })).toBe(asI);
    expect(decodeIssuedPersonId(asI, acme)).toEqual({ personKey: 42n, level: 'I' });
    const seen = new Set([asI]);
    for (const level of ['H', 'D', 'S', 'A'] as const) {
      const id = encodeGraphPersonId({ ...acme, personKey: 42n, level });
      expect(id).toMatch(/^ACME_01_[A-Z2-7]{26}$/);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
      expect(decodeIssuedPersonId(id, acme)).toEqual({ personKey: 42n, level });
      expect(decodeIssuedPersonId(id, globex)).toBeNull();
    }
  });

  it('has the CLIENTCODE_01_HASH shape', () => {
    expect(encodeGraphPersonId({ ...acme, personKey: 42n })).toMatch(/^ACME_01_[A-Z2-7]{26}$/);
  });

  it.each([0n, 1n, 42n, 123456789012345n, (1n << 64n) - 1n])('round-trips %s', (key) => {
    const id = encodeGraphPersonId({ ...acme, personKey: key });
    expect(decodeGraphPersonId(id, acme)).toBe(key);
  });

  it('accepts number and decimal-string person keys', () => {
    expect(encodeGraphPersonId({ ...acme, personKey: 42 })).toBe(encodeGraphPersonId({ ...acme, personKey: 42n }));
    expect(encodeGraphPersonId({ ...acme, personKey: '42' })).toBe(encodeGraphPersonId({ ...acme, personKey: 42n }));
  });

  it('is stable within an org and different across orgs', () => {
    const a1 = encodeGraphPersonId({ ...acme, personKey: 7n });
    const a2 = encodeGraphPersonId({ ...acme, personKey: 7n });
    const g = encodeGraphPersonId({ ...globex, personKey: 7n });
    const sameCode = encodeGraphPersonId({ ...globex, orgClientCode: 'ACME', personKey: 7n });
    expect(a1).toBe(a2);
    expect(g.split('_')[2]).not.toBe(a1.split('_')[2]);
    expect(sameCode).not.toBe(a1); // same client code, different org: different hash
    expect(encodeGraphPersonId({ ...acme, personKey: 8n })).not.toBe(a1);
  });

  it('rejects a foreign org id, even with the same client code', () => {
    const g = encodeGraphPersonId({ ...globex, personKey: 7n });
    expect(decodeGraphPersonId(g, acme)).toBeNull();
    const disguised = g.replace(/^GLBX/, 'ACME');
    expect(decodeGraphPersonId(disguised, acme)).toBeNull();
    expect(decodeGraphPersonId(g, globex)).toBe(7n);
  });

  it('rejects ids made with another secret', () => {
    const id = encodeGraphPersonId({ ...acme, personKey: 7n });
    expect(decodeGraphPersonId(id, { ...acme, secret: 'other' })).toBeNull();
  });

  it('rejects a client code mismatch when asked to check it', () => {
    const id = encodeGraphPersonId({ ...acme, personKey: 7n });
    expect(decodeGraphPersonId(id, { orgId: 'org_acme', secret, orgClientCode: 'ACME' })).toBe(7n);
    expect(decodeGraphPersonId(id, { orgId: 'org_acme', secret, orgClientCode: 'OTHER' })).toBeNull();
  });

  it('rejects every single-character tampering of the hash', () => {
    const id = encodeGraphPersonId({ ...acme, personKey: 99n });
    const prefix = 'ACME_01_';
    const hash = id.slice(prefix.length);
    for (let i = 0; i < hash.length; i++) {
      const c = hash[i] === 'A' ? 'B' : 'A';
      const tampered = prefix + hash.slice(0, i) + c + hash.slice(i + 1);
      expect(decodeGraphPersonId(tampered, acme)).toBeNull();
    }
  });

  it.each([
    [''],
    ['ACME'],
    ['ACME_01_'],
    ['acme_01_AAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['ACME_01_AAAA'],
    ['ACME_01_AAAAAAAAAAAAAAAAAAAAAAAAA1'],
    ['ACME_06_AAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['ACME-01-AAAAAAAAAAAAAAAAAAAAAAAAAA'],
    [null],
    [42],
    [{}],
  ])('rejects malformed %j without throwing', (id) => {
    expect(decodeGraphPersonId(id, acme)).toBeNull();
  });

  it('refuses invalid client codes and person keys when encoding', () => {
    expect(() => encodeGraphPersonId({ ...acme, orgClientCode: 'acme', personKey: 1n })).toThrow();
    expect(() => encodeGraphPersonId({ ...acme, orgClientCode: 'AC_ME', personKey: 1n })).toThrow();
    expect(() => encodeGraphPersonId({ ...acme, personKey: -1n })).toThrow();
    expect(() => encodeGraphPersonId({ ...acme, personKey: 1n << 64n })).toThrow();
  });
});

describe('continuity ids (tiers 02-05)', () => {
  const rec = (input: Record<string, unknown>) => normalizeMatchInput(input, { today });

  it.each([
    [{ email: 'a@example.com', phone: '4155552671' }, '02'],
    [{ email_sha256: 'b'.repeat(64) }, '02'],
    [{ phone: '4155552671', first_name: 'A', last_name: 'B' }, '03'],
    [{ first_name: 'Ann', last_name: 'Lee', address_1: '1 Main St', zip: '02134' }, '04'],
    [{ first_name: 'Ann', last_name: 'Lee', dob: '1980-03-04' }, '05'],
    [{ first_name: 'Ann', last_name: 'Lee', address_1: 'Main St', zip: '02134' }, '05'], // weak address
  ])('%j -> tier %s', (input, tier) => {
    const id = deriveContinuityId({ ...acme, record: rec(input) });
    expect(id).toMatch(new RegExp(`^ACME_${tier}_[A-Z2-7]{32}$`));
    expect(parsePersonId(id)?.tier).toBe(tier);
  });

  it('is null without a usable signal', () => {
    expect(deriveContinuityId({ ...acme, record: rec({ last_name: 'Lee' }) })).toBeNull();
    expect(deriveContinuityId({ ...acme, record: rec({ first_name: 'Ann', last_name: 'Lee' }) })).toBeNull();
    expect(continuitySignal(rec({}))).toBeNull();
  });

  it('is stable for the same signal, folds provider variants, and differs across orgs', () => {
    const a = deriveContinuityId({ ...acme, record: rec({ email: 'j.doe+x@gmail.com' }) });
    const b = deriveContinuityId({ ...acme, record: rec({ email: 'JDOE@googlemail.com' }) });
    const g = deriveContinuityId({ ...globex, record: rec({ email: 'jdoe@gmail.com' }) });
    expect(a).toBe(b);
    expect(g!.split('_')[2]).not.toBe(a!.split('_')[2]);
  });

  it('never decodes as a graph match, even relabelled as tier 01', () => {
    const id = deriveContinuityId({ ...acme, record: rec({ phone: '4155552671' }) })!;
    expect(decodeGraphPersonId(id, acme)).toBeNull();
    expect(decodeGraphPersonId(id.replace('_03_', '_01_'), acme)).toBeNull();
    expect(decodeGraphPersonId(id.replace('_03_', '_01_').slice(0, 'ACME_01_'.length + 26), acme)).toBeNull();
  });
});
