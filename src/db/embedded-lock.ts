import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it.
 * The holder writes its pid to `pg.lock`; anyone else finding a live pid there stops with advice.
 */
export class EmbeddedStoreBusyError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by another ads process (pid ${pid}), ` +
        `probably a running \`ads serve\`. Stop it first (kill -TERM ${pid}), ` +
        `or run the service and this command on PostgreSQL by setting DATABASE_URL.`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireEmbeddedLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'pg.lock');
  let holder = NaN;
  try {
    holder = Number(readFileSync(path, 'utf8').trim());
  } catch {
    // no lock file: nobody holds the store
  }
  if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
    throw new EmbeddedStoreBusyError(dataDir, holder);
  }
  writeFileSync(path, String(process.pid));
  return () => rmSync(path, { force: true });
}
