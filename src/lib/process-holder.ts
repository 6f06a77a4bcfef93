import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { processAlive } from './process-alive.ts';

/**
 * Who holds a lock file: a process killed with kill -9 leaves its lock behind, and a bare pid is not
 * proof of life: the dead process may still be a zombie its parent has not reaped yet, or its pid may
 * already belong to another process (after a container restart the new `ads` often gets the very same
 * low pids). So a holder also records the host, the kernel's boot id and the process start time (Linux
 * /proc), and counts as alive only if a non-zombie process with that pid and that start time runs on
 * this host since this boot. Where /proc is missing, the pid alone decides.
 */
export interface Holder {
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

/** This process, as it writes itself into a lock file. */
export function currentHolder(): Holder {
  return { pid: process.pid, host: hostname(), boot: bootId(), start: processInfo(process.pid)?.start ?? null };
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

/**
 * The holder written in a lock file; null when there is no file. A file that names nobody (empty, or
 * not a holder) is returned as pid 0, which is never alive.
 */
export function readHolder(path: string): Holder | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text) }; // a bare pid: the format of earlier versions
  try {
    const parsed = JSON.parse(text) as Holder;
    return typeof parsed?.pid === 'number' ? parsed : { pid: 0 };
  } catch {
    return { pid: 0 };
  }
}
