/**
 * Release build times beside a generation of the same size: a new synthetic graph, then a minor and a
 * major release derived from it, each timed as a whole, with the process's peak RSS.
 *   npx tsx bench/graph-release.ts [--persons 200000] [--data-dir .bench/release-<persons>]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateGraph, releaseMajor, releaseMinor } from '../src/graph/index.ts';

const { values } = parseArgs({ options: { persons: { type: 'string', default: '200000' }, 'data-dir': { type: 'string' } } });
const persons = Number(values.persons!.replace(/_/g, ''));
const dataDir = path.resolve(values['data-dir'] ?? `.bench/release-${persons}`);
fs.rmSync(dataDir, { recursive: true, force: true });

/** Wall seconds, and CPU seconds of the whole process (DuckDB's threads included), which a busy machine disturbs less. */
async function timed<T>(fn: () => Promise<T>): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await fn();
  const cpu = process.cpuUsage(cpu0);
  return { wall: Math.round(performance.now() - started) / 1000, cpu: Math.round((cpu.user + cpu.system) / 1000) / 1000 };
}

const generate = await timed(() => generateGraph({ dataDir, persons, seed: 7, releaseDate: '2026-11-01' }));
const minor = await timed(() => releaseMinor({ dataDir, releaseDate: '2026-11-08' }));
const major = await timed(() => releaseMajor({ dataDir, releaseDate: '2026-11-15' }));
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    bench: 'graph-release',
    persons,
    seconds: { generate, minor, major },
    cpu_minor_vs_generate: Math.round((minor.cpu / generate.cpu) * 100) / 100,
    cpu_major_vs_generate: Math.round((major.cpu / generate.cpu) * 100) / 100,
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    load_average: (await import('node:os')).loadavg().map((l) => Math.round(l * 10) / 10),
  }),
);
