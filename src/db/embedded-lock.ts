import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../lib/process-alive.ts';

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it.
 * The holder writes who it is to `pg.lock`; anyone else finding a live holder there stops with advice.
 *
 * A holder killed with kill -9 leaves its lock behind, and a bare pid is not proof of life: the dead
 * process may still be a zombie its parent has not reaped yet, or its pid may already belong to another
 * process (after a container restart the new `ads` often gets the very same low pids). So the lock also
 * records the host, the kernel's boot id and the process start time (Linux /proc), and a holder counts as
 * alive only if a non-zombie process with that pid and that start time runs on this host since this boot.
 * Where /proc is missing, the pid alone decides, as before.
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

interface Holder {
  pid: number;
  host?: string;
  boot?: string | null;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  start?: string | null;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

const bootId = () => readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

/** State and start time of a process from /proc; null when there is no such process (or no /proc). */
export function processInfo(pid: number): { state: string; start: string } | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) is in parentheses and may contain spaces: fields are counted after it.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0]!, start: rest[19]! };
}

export function holderAlive(holder: Holder): boolean {
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  const boot = bootId();
  if (boot !== null && holder.boot !== undefined) {
    // Another host or another boot: that process is gone whatever runs under its pid now.
    if (holder.host !== hostname() || holder.boot !== boot) return false;
    const info = processInfo(holder.pid);
    if (!info) return false;
    if (info.state === 'Z' || info.state === 'X') return false; // killed, not yet reaped
    return info.start === holder.start;
  }
  return processAlive(holder.pid);
}

function readHolder(path: string): Holder | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return null; // no lock file: nobody holds the store
  }
  if (/^\d+$/.test(text)) return { pid: Number(text) }; // the format of earlier versions
  try {
    return JSON.parse(text) as Holder;
  } catch {
    return null;
  }
}

export function acquireEmbeddedLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'pg.lock');
  const holder = readHolder(path);
  if (holder && holder.pid !== process.pid && holderAlive(holder)) {
    throw new EmbeddedStoreBusyError(dataDir, holder.pid);
  }
  const me: Holder = { pid: process.pid, host: hostname(), boot: bootId(), start: processInfo(process.pid)?.start ?? null };
  writeFileSync(path, JSON.stringify(me));
  return () => {
    // Only our own lock: a process that found ours stale may hold the store by now.
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true });
  };
}
