import fs from 'node:fs';
import { generateGraph, type GenerateGraphOptions } from '../../src/graph/generate.ts';
import { readCurrentRelease } from '../../src/graph/releases.ts';

/**
 * A deterministic test graph generated once per machine at `dir` and reused across runs. Parallel
 * workers of a fresh machine may all find it missing: each generates into its own temporary folder and
 * renames it into place, and a worker that loses the race drops its copy and uses the winner's, so no
 * worker ever sees half a graph or has its files removed under it.
 */
export async function sharedGraph(dir: string, options: Omit<GenerateGraphOptions, 'dataDir'>): Promise<string> {
  const present = readCurrentRelease(dir);
  if (present && present.persons === options.persons) return dir;
  if (present) fs.rmSync(dir, { recursive: true, force: true }); // another size under the same name
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  await generateGraph({ ...options, dataDir: tmp });
  try {
    fs.renameSync(tmp, dir);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
