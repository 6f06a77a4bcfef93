/**
 * `warehouse/generate.lock`: one process at a time generates the default graph of a data dir. The lock
 * names its holder (lib/process-holder.ts), so a start that finds the lock of a process that was killed
 * mid-generation (kill -9, out of memory, a stop during the first start) takes it over and generates
 * again, instead of waiting for ever for a graph nobody builds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { currentHolder, holderAlive, readHolder } from '../lib/process-holder.ts';
import { warehouseDir } from './releases.ts';

export function generateLockPath(dataDir: string): string {
  return path.join(warehouseDir(dataDir), 'generate.lock');
}

/**
 * Takes the lock; returns its release, or null while a live process holds it. The file is written under
 * a temp name and linked into place, so the lock never exists without its holder: an empty or unreadable
 * lock (earlier versions wrote none) names nobody and is taken over.
 */
export function acquireGenerateLock(dataDir: string): (() => void) | null {
  fs.mkdirSync(warehouseDir(dataDir), { recursive: true });
  const lock = generateLockPath(dataDir);
  const tmp = `${lock}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(currentHolder()));
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.linkSync(tmp, lock);
        return () => {
          // Only our own lock: a process that found ours stale may hold it by now.
          if (readHolder(lock)?.pid === process.pid) fs.rmSync(lock, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(lock);
      if (holder && holderAlive(holder)) return null;
      fs.rmSync(lock, { force: true }); // the holder died mid-generation
    }
    return null; // another start took the stale lock over at the same moment
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
