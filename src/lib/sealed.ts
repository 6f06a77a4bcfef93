/**
 * Values sealed at rest: AES-256-GCM with a random 96-bit IV, stored as base64url(iv ‖ tag ‖ ciphertext)
 * behind a prefix each caller owns (`wsk1.`, `itk1.`, `dds1.`, `mk1.<key id>.`). The additional data
 * names the row (and column) the value belongs to, so a ciphertext copied elsewhere does not open.
 * One definition for every store of secrets; migration 007 keeps its own frozen copy of the format.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedValueError extends Error {}

/** `base64url(iv ‖ tag ‖ ciphertext)` of `plaintext` under `key` (32 bytes) bound to `aad`. */
export function sealValue(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The plaintext of `sealValue`'s output; throws on a truncated, tampered or misplaced value. */
export function openValue(key: Buffer, sealed: string, aad: string): string {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SealedValueError('The sealed value is truncated.');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** A 32-byte key derived (HKDF-SHA256, empty salt) from a server secret for one purpose (`info`). */
export function derivedKey(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), info, 32));
}

/**
 * The key of `info` derived from server secret `name`, fetched once and kept; a failed fetch is
 * retried on the next call.
 */
export function cachedDerivedKey(secret: (name: string) => Promise<string>, name: string, info: string): () => Promise<Buffer> {
  let key: Promise<Buffer> | null = null;
  return () => {
    if (!key) {
      key = secret(name).then((s) => derivedKey(s, info));
      key.catch(() => {
        key = null;
      });
    }
    return key;
  };
}
