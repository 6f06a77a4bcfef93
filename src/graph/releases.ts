/**
 * Data releases: each release is a write-once DuckDB file under `${dataDir}/warehouse/releases/`, and
 * `${dataDir}/warehouse/CURRENT.json` names the current one. The pointer is replaced by writing a temp
 * file and renaming it over the old one, so a reader sees either the old or the new pointer, never half.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Version of the release file layout, bumped when producers add a table (2: discovery_persons and
 * breakdown_codes). Caches of generated graphs (tests, benchmarks) put it in their directory names.
 */
export const RELEASE_LAYOUT = 2;

export interface ReleaseInfo {
  major: number;
  minor: number;
  /** File name of the release, relative to the releases directory. */
  file: string;
  /** ISO date-time the release was made current. */
  as_of: string;
  persons: number;
}

export function warehouseDir(dataDir: string): string {
  return path.join(dataDir, 'warehouse');
}

export function releasesDir(dataDir: string): string {
  return path.join(warehouseDir(dataDir), 'releases');
}

export function pointerPath(dataDir: string): string {
  return path.join(warehouseDir(dataDir), 'CURRENT.json');
}

export function releaseFilePath(dataDir: string, info: Pick<ReleaseInfo, 'file'>): string {
  return path.join(releasesDir(dataDir), info.file);
}

/** The current release, or null when no release was ever made current (or the pointer is unreadable). */
export function readCurrentRelease(dataDir: string): ReleaseInfo | null {
  let text: string;
  try {
    text = fs.readFileSync(pointerPath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<ReleaseInfo>;
  if (typeof parsed.major !== 'number' || typeof parsed.minor !== 'number' || typeof parsed.file !== 'string') {
    throw new Error(`malformed release pointer ${pointerPath(dataDir)}`);
  }
  return {
    major: parsed.major,
    minor: parsed.minor,
    file: parsed.file,
    as_of: String(parsed.as_of ?? ''),
    persons: Number(parsed.persons ?? 0),
  };
}

/** Makes `info` the current release: temp file in the same directory, fsync, then an atomic rename. */
export function writeCurrentRelease(dataDir: string, info: ReleaseInfo): void {
  fs.mkdirSync(warehouseDir(dataDir), { recursive: true });
  const target = pointerPath(dataDir);
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(info, null, 2) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, target);
}

/** File name for a new release; the timestamp keeps names unique if a version number is ever reused. */
export function newReleaseFileName(major: number, minor: number, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `graph-${major}.${minor}-${stamp}-${process.pid}.duckdb`;
}

/** Temp path beside the final file (same filesystem, so the rename is atomic). */
export function tempReleasePath(dataDir: string, file: string): string {
  return path.join(releasesDir(dataDir), `.${file}.tmp`);
}

/** Moves a finished temp release file into place; refuses to overwrite an existing release. */
export function publishReleaseFile(dataDir: string, tmpPath: string, file: string): void {
  const finalPath = path.join(releasesDir(dataDir), file);
  if (fs.existsSync(finalPath)) throw new Error(`release file already exists: ${finalPath}`);
  // The writer checkpoints before closing, so a WAL left behind means the file is incomplete.
  if (fs.existsSync(`${tmpPath}.wal`)) throw new Error(`release ${file} was not checkpointed`);
  fs.renameSync(tmpPath, finalPath);
}

export function nextMajor(current: ReleaseInfo | null): { major: number; minor: number } {
  return { major: (current?.major ?? 0) + 1, minor: 0 };
}

/** What a statement over the attached release needs (graph/warehouse.ts `WarehouseReader` has it). */
interface ReleaseStatements {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** The columns of the attached release's tables, by table (a table the release lacks: absent). */
export async function releaseColumns(w: ReleaseStatements, tables: readonly string[]): Promise<Map<string, Set<string>>> {
  const rows = await w.query(
    `SELECT table_name, column_name FROM duckdb_columns()
     WHERE database_name = 'graph' AND schema_name = 'main' AND table_name IN (${tables.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')})`,
  );
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const t = String(r.table_name);
    if (!out.has(t)) out.set(t, new Set());
    out.get(t)!.add(String(r.column_name));
  }
  return out;
}
