import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openValue, sealValue } from '../lib/sealed.ts';

/**
 * The master key (ADR 026): it never enters the database. It wraps (AES-256-GCM) every key the database
 * holds, so a dump of the database alone reveals no usable key.
 *
 * Where it comes from, first match wins:
 * - `ADS_MASTER_KEY`: 32 bytes in base64url or hex (every process sharing a PostgreSQL database must get
 *   the same value);
 * - `MASTER_KEY_FILE`, or by default `DATA_DIR/master.key`, beside (never inside) the embedded store
 *   `DATA_DIR/pg`: created with mode 0600 on the first start when absent;
 * - an in-memory store without either: a random key that lives as long as the process (its data does too).
 *
 * `DATA_DIR/master.key.next` is the key a rotation is moving to (written before the database is
 * re-wrapped, renamed over `master.key` after): it is offered as a second candidate, so a rotation
 * interrupted at any point still starts.
 */
export interface MasterKey {
  /** Short public name of the key (a hash prefix), written beside every value it wraps. */
  id: string;
  key: Buffer;
  source: 'env' | 'file' | 'ephemeral';
  /** The file it was read from (file keys only). */
  path?: string;
}

export class MasterKeyError extends Error {}

const WRAP_PREFIX = 'mk1.';

export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('ads-master-key-id|').update(key).digest('base64url').slice(0, 10);
}

export function parseMasterKey(raw: string, origin: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
  if (key.length !== 32)
    throw new MasterKeyError(`${origin} must hold a 32-byte key in base64url or hex (make one with: openssl rand -hex 32).`);
  return key;
}

export const newMasterKey = (): Buffer => randomBytes(32);
export const encodeMasterKey = (key: Buffer): string => key.toString('base64url');

/** Writes a key file readable by its owner only; refuses to overwrite one. */
export function writeKeyFile(path: string, key: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${encodeMasterKey(key)}\n`, { mode: 0o600, flag: 'wx' });
}

function readKeyFile(path: string): MasterKey {
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) throw new MasterKeyError(`${path} is readable by others (mode ${mode.toString(8)}): run chmod 600 ${path}.`);
  const key = parseMasterKey(readFileSync(path, 'utf8'), path);
  return { id: masterKeyId(key), key, source: 'file', path };
}

export interface MasterKeyOptions {
  env?: NodeJS.ProcessEnv;
  /** The service's DATA_DIR; null for an in-memory store (tests). */
  dataDir: string | null;
}

export function masterKeyPath(options: MasterKeyOptions): string | null {
  const env = options.env ?? process.env;
  if (env.MASTER_KEY_FILE) return resolve(env.MASTER_KEY_FILE);
  return options.dataDir ? join(options.dataDir, 'master.key') : null;
}

/** The master key candidates, the current one first (see the header). */
export function loadMasterKeys(options: MasterKeyOptions): MasterKey[] {
  const env = options.env ?? process.env;
  if (env.ADS_MASTER_KEY) {
    const key = parseMasterKey(env.ADS_MASTER_KEY, 'ADS_MASTER_KEY');
    const keys: MasterKey[] = [{ id: masterKeyId(key), key, source: 'env' }];
    if (env.ADS_MASTER_KEY_PREVIOUS) {
      const previous = parseMasterKey(env.ADS_MASTER_KEY_PREVIOUS, 'ADS_MASTER_KEY_PREVIOUS');
      keys.push({ id: masterKeyId(previous), key: previous, source: 'env' });
    }
    return keys;
  }
  const path = masterKeyPath(options);
  if (!path) {
    const key = newMasterKey();
    return [{ id: masterKeyId(key), key, source: 'ephemeral' }];
  }
  if (!existsSync(path)) {
    try {
      writeKeyFile(path, newMasterKey());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const keys = [readKeyFile(path)];
  if (existsSync(`${path}.next`)) keys.push(readKeyFile(`${path}.next`));
  return keys;
}

/** Makes `path.next` the key file (the last step of a rotation, or its completion on the next start). */
export function promoteNextKeyFile(path: string): void {
  renameSync(`${path}.next`, path);
}

/** `mk1.<key id>.<base64url(iv ‖ tag ‖ ciphertext)>`; `aad` binds the value to its row. */
export function wrapValue(master: MasterKey, plaintext: string, aad: string): string {
  return `${WRAP_PREFIX}${master.id}.${sealValue(master.key, plaintext, aad)}`;
}

export const isWrapped = (stored: string): boolean => stored.startsWith(WRAP_PREFIX);

/** The key id a stored value was wrapped under; null for a value that is not wrapped. */
export function wrappedKeyId(stored: string): string | null {
  if (!isWrapped(stored)) return null;
  return stored.slice(WRAP_PREFIX.length).split('.')[0] ?? null;
}

/** Unwraps with whichever candidate wrapped the value; throws a MasterKeyError naming the missing key. */
export function unwrapValue(masters: readonly MasterKey[], stored: string, aad: string): string {
  const keyId = wrappedKeyId(stored);
  if (!keyId) throw new MasterKeyError('The stored key is not wrapped.');
  const master = masters.find((m) => m.id === keyId);
  if (!master) {
    throw new MasterKeyError(
      `The database's keys are wrapped under master key ${keyId}, but this process has ${masters.map((m) => m.id).join(', ')}. ` +
        'Start it with the master key the database was set up with (ADS_MASTER_KEY or the key file).',
    );
  }
  const sealed = stored.slice(WRAP_PREFIX.length + keyId.length + 1);
  if (Buffer.from(sealed, 'base64url').length < 28) throw new MasterKeyError('A wrapped key is truncated.');
  try {
    return openValue(master.key, sealed, aad);
  } catch {
    throw new MasterKeyError(`A key wrapped under master key ${keyId} does not authenticate (altered, or moved to another row).`);
  }
}
