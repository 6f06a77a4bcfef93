/**
 * Person ids in the CLIENTCODE_TIER_HASH format (spec section 2, Naming note).
 *
 * Tier 01 (graph match): HASH is a deterministic encryption of the 8-byte graph person key
 * under a per-organization key, so the same person has the same id within one organization,
 * a different id in every other, customers cannot reverse it, and the service can resolve it.
 * Construction (one AES block, an SIV-like "encrypt(plaintext || MAC)" scheme):
 *   encKey = HMAC-SHA256(secret, "iag-person-id/v1/enc|" + orgId)
 *   macKey = HMAC-SHA256(secret, "iag-person-id/v1/mac|" + orgId)
 *   block  = personKey (8 bytes, big endian) || HMAC-SHA256(macKey, personKey)[0..8)
 *   HASH   = base32(AES-256-ECB(encKey, block))      -> 26 chars, RFC 4648 alphabet, no padding
 * ECB is safe here: exactly one block, and the block is unique per person key. Decoding checks
 * the 64-bit tag, so a foreign org's id, a tampered id or a random string returns null.
 * The issuing match level is carried by the MAC key (docs/decisions/051-enrichment-by-match-level.md):
 * level I uses `mac` above (so every id issued before levels were carried still decodes, as I), levels
 * H, D, S and A use `mac-H`, `mac-D`, ... . Decoding finds the level whose tag verifies, so an id
 * issued by an address-level match can never be presented as an individual one, and nothing in the
 * id tells a customer the level (it is in the response anyway).
 *
 * Tiers 02-05 (continuity labels): HMAC of the row's own strongest signal under a separate
 * per-org key, 20 bytes -> 32 base32 chars. The different length and tier make them
 * structurally impossible to decode as tier 01, and nothing about them is reversible.
 *   02 email  (first email's provider match key hash, else first pre-hashed email)
 *   03 phone  (first E.164 phone hash, else first pre-hashed phone)
 *   04 name + address (last name, first initial, address blocking key + unit)
 *   05 name + dob, or weaker: name + ZIP5 / city+state (last name + first name required)
 */
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { addressKey } from './normalize/address/address.ts';
import type { NormalizedRecord } from './normalize/record.ts';

export type PersonTier = '01' | '02' | '03' | '04' | '05';

/** The match level that issued a tier 01 id (the matcher's MatchLevel; kept here so the codec depends on nothing). */
export type IssuingLevel = 'I' | 'H' | 'D' | 'S' | 'A';
const ISSUING_LEVELS: readonly IssuingLevel[] = ['I', 'H', 'D', 'S', 'A'];
const macPurpose = (level: IssuingLevel) => (level === 'I' ? 'mac' : `mac-${level}`);

export interface ParsedPersonId {
  clientCode: string;
  tier: PersonTier;
  hash: string;
}

const CLIENT_CODE = /^[A-Z0-9]{2,16}$/;
const ID = /^([A-Z0-9]{2,16})_(0[1-5])_([A-Z2-7]+)$/;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const GRAPH_HASH_LEN = 26;
const CONTINUITY_HASH_LEN = 32;

function base32(buf: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(s: string, bytes: number): Buffer | null {
  const out = Buffer.alloc(bytes);
  let bits = 0;
  let value = 0;
  let n = 0;
  for (const ch of s) {
    const v = B32.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      if (n >= bytes) return null;
      out[n++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  // Leftover bits must be zero, otherwise two strings would decode to the same bytes.
  if (n !== bytes || (value & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/**
 * Per-organization keys are derived once and kept (bounded; the process holds the secret anyway): a
 * 100-row match encodes up to 100 ids, and deriving two keys for each was most of their cost.
 */
const derived = new Map<string, Buffer>();
const DERIVED_MAX = 4096;

function orgKey(secret: string | Buffer, purpose: string, orgId: string): Buffer {
  const id = `${typeof secret === 'string' ? secret : secret.toString('base64')}\u0000${purpose}\u0000${orgId}`;
  let key = derived.get(id);
  if (!key) {
    if (derived.size >= DERIVED_MAX) derived.clear();
    key = createHmac('sha256', secret).update(`iag-person-id/v1/${purpose}|${orgId}`).digest();
    derived.set(id, key);
  }
  return key;
}

export function assertClientCode(code: string): void {
  if (!CLIENT_CODE.test(code)) {
    throw new Error(`client code must be 2-16 upper-case letters or digits, got "${code}"`);
  }
}

/** Split an id into its parts without verifying it; null when the shape is wrong. */
export function parsePersonId(id: unknown): ParsedPersonId | null {
  if (typeof id !== 'string') return null;
  const m = ID.exec(id.trim());
  if (!m) return null;
  const tier = m[2] as PersonTier;
  const len = tier === '01' ? GRAPH_HASH_LEN : CONTINUITY_HASH_LEN;
  if (m[3]!.length !== len) return null;
  return { clientCode: m[1]!, tier, hash: m[3]! };
}

export type PersonKey = bigint | number | string;

function keyBytes(personKey: PersonKey): Buffer {
  const k = typeof personKey === 'bigint' ? personKey : BigInt(personKey);
  if (k < 0n || k >= 1n << 64n) throw new Error('person key must be an unsigned 64-bit integer');
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(k);
  return b;
}

export interface GraphIdOptions {
  orgId: string;
  orgClientCode: string;
  personKey: PersonKey;
  secret: string | Buffer;
  /** The match level that issues the id; default I (also the level of ids of audience members the service selected). */
  level?: IssuingLevel;
}

/**
 * The two per-organization keys of tier 01 ids (see the header): for encoders that batch many ids
 * (src/identity/person-id-batch.ts) and must produce exactly what `graphPersonIdEncoder` does.
 */
export function graphPersonIdKeys({ orgId, secret, level = 'I' }: { orgId: string; secret: string | Buffer; level?: IssuingLevel }): {
  encKey: Buffer;
  macKey: Buffer;
} {
  return { encKey: orgKey(secret, 'enc', orgId), macKey: orgKey(secret, macPurpose(level), orgId) };
}

export function encodeGraphPersonId({ orgId, orgClientCode, personKey, secret, level }: GraphIdOptions): string {
  return graphPersonIdEncoder({ orgId, orgClientCode, secret, ...(level ? { level } : {}) })(personKey);
}

/**
 * An encoder for many ids of one organization (a match response): one AES context for all of them.
 * ECB without padding encrypts each 16-byte block on its own, so feeding blocks one after another
 * through one cipher gives exactly the per-id result.
 */
export function graphPersonIdEncoder({
  orgId,
  orgClientCode,
  secret,
  level = 'I',
}: Omit<GraphIdOptions, 'personKey'>): (personKey: PersonKey) => string {
  assertClientCode(orgClientCode);
  const macKey = orgKey(secret, macPurpose(level), orgId);
  const cipher = createCipheriv('aes-256-ecb', orgKey(secret, 'enc', orgId), null).setAutoPadding(false);
  return (personKey) => {
    const key = keyBytes(personKey);
    const tag = createHmac('sha256', macKey).update(key).digest().subarray(0, 8);
    return `${orgClientCode}_01_${base32(cipher.update(Buffer.concat([key, tag])))}`;
  };
}

export interface DecodeOptions {
  orgId: string;
  secret: string | Buffer;
  /** When given, an id carrying another client code is rejected too. */
  orgClientCode?: string;
}

/** The graph person key of a tier 01 id issued to this org, whatever its level; null for anything else. Never throws. */
export function decodeGraphPersonId(id: unknown, options: DecodeOptions): bigint | null {
  return decodeIssuedPersonId(id, options)?.personKey ?? null;
}

/**
 * The graph person key of a tier 01 id issued to this org and the match level that issued it; null for
 * anything else (foreign, tampered, malformed, tier 02-05). Never throws.
 */
export function decodeIssuedPersonId(
  id: unknown,
  { orgId, secret, orgClientCode }: DecodeOptions,
): { personKey: bigint; level: IssuingLevel } | null {
  const parsed = parsePersonId(id);
  if (!parsed || parsed.tier !== '01') return null;
  if (orgClientCode !== undefined && parsed.clientCode !== orgClientCode) return null;
  const block = unbase32(parsed.hash, 16);
  if (!block) return null;
  const decipher = createDecipheriv('aes-256-ecb', orgKey(secret, 'enc', orgId), null).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(block), decipher.final()]);
  const key = plain.subarray(0, 8);
  for (const level of ISSUING_LEVELS) {
    const expected = createHmac('sha256', orgKey(secret, macPurpose(level), orgId))
      .update(key)
      .digest()
      .subarray(0, 8);
    if (timingSafeEqual(expected, plain.subarray(8))) return { personKey: key.readBigUInt64BE(), level };
  }
  return null;
}

/** The tier and the signal string a continuity id is derived from; null when the row has none. */
export function continuitySignal(record: NormalizedRecord): { tier: Exclude<PersonTier, '01'>; signal: string } | null {
  const email = record.emails[0]?.matchKeySha256 ?? record.emailSha256Inputs[0];
  if (email) return { tier: '02', signal: `email:${email}` };
  const phone = record.phones[0]?.sha256 ?? record.phoneSha256Inputs[0];
  if (phone) return { tier: '03', signal: `phone:${phone}` };
  const { first, last } = record.name;
  if (!last || !first) return null;
  const who = `${last}|${first}`;
  for (const addr of record.addresses) {
    const k = addressKey(addr);
    if (k) return { tier: '04', signal: `addr:${last}|${first[0]}|${k.key}|${k.unit ?? ''}` };
  }
  if (record.dob) return { tier: '05', signal: `dob:${who}|${record.dob.iso}` };
  const addr = record.addresses[0];
  const locality = addr?.zip5 ?? (addr?.city && addr.state ? `${addr.city},${addr.state}` : null);
  if (locality) return { tier: '05', signal: `loc:${who}|${locality}` };
  return null;
}

export interface ContinuityIdOptions {
  orgId: string;
  orgClientCode: string;
  secret: string | Buffer;
  record: NormalizedRecord;
}

/** Best-effort tier 02-05 label for an unmatched row; null when the row has no usable signal. */
export function deriveContinuityId({ orgId, orgClientCode, secret, record }: ContinuityIdOptions): string | null {
  assertClientCode(orgClientCode);
  const s = continuitySignal(record);
  if (!s) return null;
  const mac = createHmac('sha256', orgKey(secret, 'continuity', orgId))
    .update(`${s.tier}|${s.signal}`)
    .digest();
  return `${orgClientCode}_${s.tier}_${base32(mac.subarray(0, 20))}`;
}
