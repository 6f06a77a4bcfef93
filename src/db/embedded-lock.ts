import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentHolder, holderAlive, readHolder, type Holder } from '../lib/process-holder.ts';

export { processInfo } from '../lib/process-holder.ts';

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it.
 * The holder writes who it is to `pg.lock`; anyone else finding a live holder there stops with advice.
 * A holder killed with kill -9 leaves its lock behind: lib/process-holder.ts tells a live holder from a
 * dead one.
 */
export class EmbeddedStoreBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another ads process (pid ${pid}), ` +
        `probably a running \`ads serve\`. Stop it first (kill -TERM ${pid}), ` +
        `or run the service and this command on PostgreSQL by setting DATABASE_URL.`,
    );
  }
}

export function acquireEmbeddedLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'pg.lock');
  const holder = readHolder(path);
  if (holder && holder.pid !== process.pid && holderAlive(holder)) {
    throw new EmbeddedStoreBusyError(dataDir, holder.pid);
  }
  const me: Holder = currentHolder();
  writeFileSync(path, JSON.stringify(me));
  return () => {
    // Only our own lock: a process that found ours stale may hold the store by now.
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
  };
}
