/**
 * The common frame of every release producer (generate, import, minor, major): open a writer on a temp
 * file, create the release tables, let the producer fill them, derive the discovery table
 * (discovery-table.ts), record release_meta, checkpoint, rename
 * the file into place and finally move the pointer. A failure at any step leaves the current release
 * untouched.
 */
import fs from 'node:fs';
import { removeAbandonedFiles } from '../lib/abandoned-files.ts';
import { lit, openReleaseWriter, type ReleaseWriter } from './duck.ts';
import { newReleaseFileName, publishReleaseFile, releasesDir, tempReleasePath, writeCurrentRelease, type ReleaseInfo } from './releases.ts';
import { buildDiscoveryTable } from './discovery-table.ts';
import { RELEASE_TABLES, createTableSql } from './schema.ts';

export interface ProgressEvent {
  step: string;
  done: number;
  total: number;
}
export type ProgressFn = (event: ProgressEvent) => void;

/** Turns named stages into {step, done, total} events for a progress bar. */
export function stageReporter(stages: readonly string[], onProgress?: ProgressFn): (step: string) => void {
  return (step) => {
    const i = stages.indexOf(step);
    onProgress?.({ step, done: i < 0 ? 0 : i, total: stages.length });
  };
}

export interface BuildOptions {
  dataDir: string;
  major: number;
  minor: number;
  source: 'generate' | 'import' | 'minor' | 'major';
  seed?: number;
  releaseDate: string;
  memoryLimit?: string;
  threads?: number;
  /** Keep source row order in unordered queries (the importer's file order); costs memory. */
  preserveInsertionOrder?: boolean;
  /** Fills the (empty) release tables; the writer has TEMP space for staging. */
  fill: (w: ReleaseWriter) => Promise<void>;
}

export async function buildRelease(o: BuildOptions): Promise<ReleaseInfo> {
  fs.mkdirSync(releasesDir(o.dataDir), { recursive: true });
  removeAbandonedTempFiles(o.dataDir);
  const now = new Date();
  const file = newReleaseFileName(o.major, o.minor, now);
  const tmp = tempReleasePath(o.dataDir, file);
  const w = await openReleaseWriter(tmp, {
    memoryLimit: o.memoryLimit,
    threads: o.threads,
    preserveInsertionOrder: o.preserveInsertionOrder,
  });
  let persons = 0;
  try {
    for (const t of RELEASE_TABLES) await w.run(createTableSql(t));
    await o.fill(w);
    await buildDiscoveryTable(w);
    persons = Number(await w.scalar<bigint>('SELECT count(*) FROM persons'));
    await w.run(`INSERT INTO release_meta VALUES (${o.major}, ${o.minor}, DATE ${lit(o.releaseDate)},
      TIMESTAMP ${lit(now.toISOString().replace('T', ' ').replace('Z', ''))}, ${lit(o.source)}, ${o.seed ?? 'NULL'}, ${persons})`);
    await w.close();
  } catch (err) {
    try {
      await w.close();
    } catch {
      /* the original error matters more */
    }
    fs.rmSync(tmp, { force: true });
    fs.rmSync(`${tmp}.wal`, { force: true });
    throw err;
  }
  publishReleaseFile(o.dataDir, tmp, file);
  const info: ReleaseInfo = { major: o.major, minor: o.minor, file, as_of: now.toISOString(), persons };
  writeCurrentRelease(o.dataDir, info);
  return info;
}

/**
 * A producer killed mid-way (out of memory, Ctrl-C) leaves `.graph-*-<pid>.duckdb.tmp*` behind, up to
 * gigabytes. Their names carry the writer's pid: remove those whose process is gone.
 */
function removeAbandonedTempFiles(dataDir: string): void {
  removeAbandonedFiles(releasesDir(dataDir), /^\.graph-.*-(\d+)\.duckdb\.tmp/);
}

/** Today's date (UTC) as YYYY-MM-DD: the default release date. */
export function todayIso(): string {
  return new Date().toISOString().slice(0, 10);
}
