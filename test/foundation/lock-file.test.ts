/**
 * `npm ci` refuses a lock file that is out of sync with package.json, and npm 11 counts a missing entry
 * for another platform's optional binary (darwin, windows, arm64 builds of DuckDB's bindings) as out of
 * sync. A lock written on one platform with node_modules present can leave those entries out; then `npm ci`
 * fails on a fresh clone and `npm install` rewrites the lock (a dirty clone). These checks read the
 * committed lock file the way npm does, so such a lock fails here before it fails a user.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
interface LockFile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as LockFile;
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as LockEntry;

/** Where npm would find `name` required from the package at `from`: nested first, then each ancestor. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

/** Every optional dependency (all platforms) that the lock names without an entry of its own. */
function missingOptionals(): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolves(path, name)) missing.push(`${path || '(root)'} -> ${name}`);
    }
  }
  return missing;
}

describe('package-lock.json (npm ci on a fresh clone of any platform)', () => {
  it('holds an entry for every optional dependency of every platform', () => {
    expect(missingOptionals()).toEqual([]);
  });

  it('declares at its root exactly the dependencies package.json declares', () => {
    const root = lock.packages[''];
    expect(lock.lockfileVersion).toBe(3);
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
  });

  it('finds a missing optional binding (the check itself)', () => {
    const binding = 'node_modules/@duckdb/node-bindings-darwin-arm64';
    const saved = lock.packages[binding];
    expect(saved).toBeDefined();
    delete lock.packages[binding];
    try {
      expect(missingOptionals()).toContain('node_modules/@duckdb/node-bindings -> @duckdb/node-bindings-darwin-arm64');
    } finally {
      lock.packages[binding] = saved;
    }
  });
});
