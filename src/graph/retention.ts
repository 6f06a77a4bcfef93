/**
 * Release retention: which release files (and their sidecars, such as match indexes, named after the
 * release file) are still needed, and removing the rest. Kept: the current release, the one before it
 * (a process may still be switching away from it), and every release a caller says is referenced
 * (live segments and audiences record the release they were made against).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readCurrentRelease, releasesDir } from './releases.ts';

export interface ReleaseFileSet {
  /** The release file name, e.g. graph-1.2-20261123T120000-42.duckdb. */
  file: string;
  major: number;
  minor: number;
  /** The release file and its sidecars, in bytes. */
  bytes: number;
  sidecars: string[];
  current: boolean;
}

const RELEASE = /^graph-(\d+)\.(\d+)-.*\.duckdb$/;

/** Release files of a data dir, newest version first, each with its sidecars. */
export function listReleases(dataDir: string): ReleaseFileSet[] {
  const dir = releasesDir(dataDir);
  if (!fs.existsSync(dir)) return [];
  const names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
  const current = readCurrentRelease(dataDir)?.file ?? null;
  const releases = names.filter((n) => RELEASE.test(n) && !/\.match-v\d+\.duckdb$/.test(n));
  return releases
    .map((file) => {
      const m = RELEASE.exec(file)!;
      const stem = file.replace(/\.duckdb$/, '');
      const sidecars = names.filter((n) => n !== file && n.startsWith(`${stem}.`));
      const bytes = [file, ...sidecars].reduce((sum, n) => sum + fs.statSync(path.join(dir, n)).size, 0);
      return { file, major: Number(m[1]), minor: Number(m[2]), bytes, sidecars, current: file === current };
    })
    .sort((a, b) => b.major - a.major || b.minor - a.minor || b.file.localeCompare(a.file));
}

export interface PrunePlan {
  keep: (ReleaseFileSet & { why: string })[];
  remove: ReleaseFileSet[];
  /** Sidecars of kept releases that the current code no longer reads (older index versions). */
  staleSidecars: string[];
}

/**
 * `referenced`: "major.minor" of releases live resources still name. `sidecarInUse(name)`: whether
 * the current code reads a sidecar of that name.
 */
export function planPrune(dataDir: string, referenced: ReadonlySet<string>, sidecarInUse: (name: string) => boolean): PrunePlan {
  const all = listReleases(dataDir);
  const currentIndex = all.findIndex((r) => r.current);
  const plan: PrunePlan = { keep: [], remove: [], staleSidecars: [] };
  all.forEach((r, i) => {
    const why = r.current
      ? 'current'
      : i === currentIndex + 1
        ? 'previous (a process may still be switching from it)'
        : referenced.has(`${r.major}.${r.minor}`)
          ? 'referenced by live segments or audiences'
          : null;
    if (why) {
      plan.keep.push({ ...r, why });
      plan.staleSidecars.push(...r.sidecars.filter((s) => !sidecarInUse(s)));
    } else {
      plan.remove.push(r);
    }
  });
  return plan;
}

/** Removes what a plan says; returns the bytes freed. */
export function applyPrune(dataDir: string, plan: PrunePlan): number {
  const dir = releasesDir(dataDir);
  let freed = 0;
  const rm = (name: string) => {
    const p = path.join(dir, name);
    if (!fs.existsSync(p)) return;
    freed += fs.statSync(p).size;
    fs.rmSync(p, { force: true });
  };
  for (const r of plan.remove) for (const name of [...r.sidecars, r.file]) rm(name);
  for (const name of plan.staleSidecars) rm(name);
  return freed;
}
