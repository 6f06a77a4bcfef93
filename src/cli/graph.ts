import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { printJson, progressBar, UsageError } from './output.ts';

const USAGE = `usage:
  ads graph generate --persons N [--seed S]
  ads graph import <file.csv|file.parquet> --mapping <mapping.json>
  ads graph release --minor|--major [--seed S]`;

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
    },
  });
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
  printJson({ current_release_major: release.major, current_release_minor: release.minor, persons: release.persons, file: release.file, as_of: release.as_of });
}
