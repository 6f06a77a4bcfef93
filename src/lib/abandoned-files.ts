/**
 * Temporary files of a writer that was killed mid-way (out of memory, Ctrl-C, kill -9): release and match index
 * builds write gigabytes under a hidden name that carries their pid and rename it when done, so a killed one
 * leaves its files behind. The next writer removes those whose process is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from './process-alive.ts';

/** Removes the entries of `dir` whose name matches `pattern` (group 1: the writer's pid) and whose writer has ended. */
export function removeAbandonedFiles(dir: string, pattern: RegExp): string[] {
  const removed: string[] = [];
  if (!fs.existsSync(dir)) return removed;
  for (const name of fs.readdirSync(dir)) {
    const m = pattern.exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
