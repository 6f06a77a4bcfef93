import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.ts';

/**
 * On the first start of an empty DATA_DIR, generate the default synthetic graph (GRAPH_PERSONS,
 * 1,000,000 by default). A lock file keeps two processes on one data dir from both generating.
 */
export async function ensureDefaultGraph(config: Config): Promise<void> {
  if (config.graphPersons <= 0) return;
  const graph = await import('../graph/index.ts');
  if (graph.readCurrentRelease(config.dataDir)) return;
  const warehouse = join(config.dataDir, 'warehouse');
  mkdirSync(warehouse, { recursive: true });
  const lock = join(warehouse, 'generate.lock');
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    return; // another process is generating it
  }
  const started = Date.now();
  process.stderr.write(`Generating the default synthetic graph (${config.graphPersons.toLocaleString('en-US')} persons) in the background...\n`);
  try {
    const release = await graph.generateGraph({ dataDir: config.dataDir, persons: config.graphPersons, seed: 1 });
    process.stderr.write(`Graph ready: release ${release.major}.${release.minor}, ${release.persons} persons, ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
  } catch (error) {
    process.stderr.write(`Graph generation failed: ${(error as Error).message}\n`);
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}
