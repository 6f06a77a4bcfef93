import type { Config } from '../config/index.ts';

/**
 * On a start without a current release, generate the default synthetic graph (GRAPH_PERSONS, 1,000,000
 * by default), whatever the control plane holds: a first start killed mid-generation has created the
 * demo organization but no release, and the next start must build it. A lock keeps two processes on one
 * data dir from both generating; the lock of a dead process is taken over, and its temp release files
 * are removed by the build (graph/build.ts).
 */
export async function ensureDefaultGraph(config: Config): Promise<void> {
  if (config.graphPersons <= 0) return;
  const graph = await import('../graph/index.ts');
  if (graph.readCurrentRelease(config.dataDir)) return;
  const unlock = graph.acquireGenerateLock(config.dataDir);
  if (!unlock) return; // another live process is generating it
  const started = Date.now();
  try {
    // A process that held the lock until just now may have finished the graph.
    if (graph.readCurrentRelease(config.dataDir)) return;
    process.stderr.write(
      `Generating the default synthetic graph (${config.graphPersons.toLocaleString('en-US')} persons) in the background...\n`,
    );
    const release = await graph.generateGraph({ dataDir: config.dataDir, persons: config.graphPersons, seed: 1 });
    process.stderr.write(
      `Graph ready: release ${release.major}.${release.minor}, ${release.persons} persons, ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
    );
  } catch (error) {
    process.stderr.write(`Graph generation failed: ${(error as Error).message}\n`);
  } finally {
    unlock();
  }
}
