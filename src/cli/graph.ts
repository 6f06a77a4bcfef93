import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.ts';
import { printJson, progressBar, UsageError } from './output.ts';

const USAGE = 'ads graph generate|import|release|releases (see ads graph --help)';

function positiveInt(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required\n${USAGE}`);
    return fallback;
  }
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

/** `ads graph ...`: warehouse releases. Never touches the control plane, so it runs beside a server. */
export async function graphCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      persons: { type: 'string' },
      seed: { type: 'string' },
      mapping: { type: 'string' },
      minor: { type: 'boolean' },
      major: { type: 'boolean' },
      prune: { type: 'boolean' },
    },
  });
  if (positionals[0] === 'releases') return releasesCommand(values.prune === true);
  const config = loadConfig();
  const graph = await import('../graph/index.ts');
  const [sub, file] = positionals;
  const seed = values.seed === undefined ? undefined : positiveInt(values.seed, 'seed');
  let release;
  if (sub === 'generate') {
    const persons = positiveInt(values.persons, 'persons');
    release = await graph.generateGraph({ dataDir: config.dataDir, persons, seed: seed ?? 1, onProgress: progressBar('generate') });
  } else if (sub === 'import') {
    if (!file || !values.mapping) throw new UsageError(USAGE);
    let mapping: Record<string, string>;
    try {
      mapping = JSON.parse(readFileSync(values.mapping, 'utf8'));
    } catch (error) {
      throw new UsageError(`cannot read the mapping ${values.mapping}: ${(error as Error).message}`);
    }
    release = await graph.importGraph({ dataDir: config.dataDir, file, mapping, onProgress: progressBar('import') });
  } else if (sub === 'release' && values.minor !== values.major) {
    const run = values.minor ? graph.releaseMinor : graph.releaseMajor;
    release = await run({ dataDir: config.dataDir, seed, onProgress: progressBar(values.minor ? 'minor release' : 'major release') });
  } else {
    throw new UsageError(USAGE);
  }
  printJson({
    current_release_major: release.major,
    current_release_minor: release.minor,
    persons: release.persons,
    file: release.file,
    as_of: release.as_of,
  });
}

/**
 * `ads graph releases [--prune]`: the release files, their sizes and why each is kept. Pruning reads the
 * control plane (which releases live segments and audiences name), so on the embedded store it needs
 * the server stopped (or PostgreSQL).
 */
async function releasesCommand(prune: boolean): Promise<void> {
  const config = loadConfig();
  const { planPrune, applyPrune } = await import('../graph/index.ts');
  const { MATCH_INDEX_VERSION } = await import('../identity/matcher/index.ts');
  const { isCurrentRenderedRows } = await import('../export-engine/index.ts');
  // The match index of the current version, the recorded matching parameters (ads matching refit) and
  // rendered rows of the current version (deliveries).
  const sidecarInUse = (name: string) =>
    name.endsWith(`.match-v${MATCH_INDEX_VERSION}.duckdb`) || name.endsWith('.match-params.json') || isCurrentRenderedRows(name);
  const { openDatabase } = await import('../db/database.ts');
  const { referencedReleases } = await import('../modules/segments/index.ts');
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let referenced: Set<string>;
  try {
    referenced = await referencedReleases(database.db);
  } finally {
    await database.close();
  }
  const plan = planPrune(config.dataDir, referenced, sidecarInUse);
  const mb = (b: number) => Math.round(b / 1e6);
  const freed = prune ? applyPrune(config.dataDir, plan) : 0;
  printJson({
    releases: plan.keep.length + (prune ? 0 : plan.remove.length),
    keep: plan.keep.map((r) => ({ release: `${r.major}.${r.minor}`, file: r.file, mb: mb(r.bytes), why: r.why })),
    [prune ? 'removed' : 'removable']: plan.remove.map((r) => ({ release: `${r.major}.${r.minor}`, file: r.file, mb: mb(r.bytes) })),
    stale_sidecars: plan.staleSidecars,
    ...(prune
      ? { freed_mb: mb(freed) }
      : { hint: plan.remove.length || plan.staleSidecars.length ? 'run with --prune to remove them' : 'nothing to remove' }),
  });
}
