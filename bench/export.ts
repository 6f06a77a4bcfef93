/**
 * Export engine throughput (issue #14): a 1,000,000-member audience of the 10M graph with the
 * `standard_enrichment` template, in each format, from the start of the export job to its last part
 * written. Reports wall time, rows/s, CPU seconds of the process (all threads) and its peak RSS, one
 * child process per format so each peak is its own, plus the machine's load average (node-svc is shared).
 * Prints JSON.
 *
 *   flock /work/bench.lock npx tsx bench/export.ts [--data-dir .bench/data] [--rows 1000000] [--formats csv,csv.gz,json,jsonl,avro]
 *     [--paths rendered,engine] [--id-worker auto|on|off]
 *
 * Paths: `rendered` exports from the release's rendered rows of the format (src/export-engine/rendered),
 * rendered before timing when missing (as the service does after start; the build time is printed; at
 * 10M persons csv and avro take 2.5 GB each, json lines 6.6 GB); `engine` reads and encodes every row
 * (the path of a field list without rendered rows).
 *
 * Members are a deterministic pseudo-random selection (the `rows` persons with the smallest
 * hash(person_key, 'bench-export')), materialized as a Parquet member set before timing, as a similarity
 * or matched segment is: spread over every row group of the graph, the most expensive shape to read.
 * Generate the graph first: npx tsx bench/graph-generate.ts --persons 10000000
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildRenderedRows, exportRows, type ExportFormat } from '../src/export-engine/index.ts';
import { releaseFilePath } from '../src/graph/releases.ts';
import { openWarehouse } from '../src/graph/warehouse.ts';
import { templateFields } from './lib/export-fields.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/data' },
    rows: { type: 'string', default: '1000000' },
    formats: { type: 'string', default: 'csv,csv.gz,json,jsonl,avro' },
    one: { type: 'string' },
    members: { type: 'string' },
    out: { type: 'string', default: '.bench/delivery-engine-export' },
    // Tier 01 ids on the engine's worker thread: auto (the engine's default, in-process), on or off.
    'id-worker': { type: 'string', default: 'auto' },
    paths: { type: 'string', default: 'rendered,engine' },
    path: { type: 'string' },
  },
});
const dataDir = path.resolve(values['data-dir']!);
const rows = Number(values.rows);
const outRoot = path.resolve(values.out!);

/** The rendered rows of the template in this format, built (untimed) when missing; a lookup for the engine. */
async function renderedLookup(
  warehouse: Awaited<ReturnType<typeof openWarehouse>>,
  format: ExportFormat,
): Promise<(key: string) => string | null> {
  const releaseFile = releaseFilePath(dataDir, await warehouse.release());
  const t0 = performance.now();
  const built = await buildRenderedRows({ warehouse, releaseFile, fields: templateFields('standard_enrichment'), format });
  if (built.built)
    console.error(
      `rendered ${format} rows: ${built.rows} rows, ${built.bytes} bytes, ${Math.round(performance.now() - t0)} ms, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
    );
  return (key) => (built.path.includes(key) ? built.path : null);
}

async function runOne(spec: string, membersFile: string, exportPath: string): Promise<void> {
  const [format, gz] = spec.split('.') as [ExportFormat, string | undefined];
  const warehouse = await openWarehouse({ dataDir, threads: 2 });
  await warehouse.release();
  const renderedRows = exportPath === 'rendered' ? await renderedLookup(warehouse, format) : undefined;
  const outputDir = path.join(outRoot, `${exportPath}-${spec.replace('.', '-')}`);
  fs.rmSync(outputDir, { recursive: true, force: true });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await exportRows({
    warehouse,
    members: { sql: `SELECT person_key FROM read_parquet('${membersFile}')` },
    fields: templateFields('standard_enrichment'),
    personIds: { orgId: 'org_bench', orgClientCode: 'BENCH', secret: 'bench-secret' },
    format,
    compression: gz ? 'gzip' : 'none',
    outputDir,
    ...(renderedRows ? { renderedRows } : {}),
    ...(values['id-worker'] === 'auto' ? {} : { idWorker: values['id-worker'] === 'on' }),
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await warehouse.close();
  console.log(
    JSON.stringify({
      format: spec,
      path: exportPath,
      rows: result.output_record_count,
      parts: result.parts.length,
      output_bytes: result.output_bytes,
      seconds: Math.round(seconds * 1000) / 1000,
      rows_per_second: Math.round(result.output_record_count / seconds),
      // CPU of every thread of the process (DuckDB's, zlib's pool, JS): the work itself, whatever else the machine runs.
      cpu_seconds: Math.round((cpu.user + cpu.system) / 1000) / 1000,
      load_average_1m: Math.round(os.loadavg()[0]! * 100) / 100,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

if (values.one) {
  await runOne(values.one, values.members!, values.path ?? 'engine');
} else {
  fs.mkdirSync(outRoot, { recursive: true });
  const membersFile = path.join(outRoot, `members-${rows}.parquet`);
  if (!fs.existsSync(membersFile)) {
    const warehouse = await openWarehouse({ dataDir, threads: 2 });
    await warehouse.query(`COPY (SELECT person_key FROM graph.persons ORDER BY hash(person_key, 'bench-export'), person_key LIMIT ${rows})
      TO '${membersFile}' (FORMAT parquet)`);
    await warehouse.close();
  }
  const results: unknown[] = [];
  for (const exportPath of values.paths!.split(',')) {
    for (const spec of values.formats!.split(',')) {
      const child = spawnSync(
        process.execPath,
        [
          ...process.execArgv,
          import.meta.filename,
          '--one',
          spec,
          '--members',
          membersFile,
          '--path',
          exportPath,
          '--data-dir',
          dataDir,
          '--out',
          outRoot,
          '--id-worker',
          values['id-worker']!,
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      if (child.status !== 0) throw new Error(`export ${spec} (${exportPath}) failed`);
      results.push(JSON.parse(child.stdout.trim().split('\n').at(-1)!));
    }
  }
  console.log(JSON.stringify({ benchmark: 'export', data_dir: dataDir, members: rows, fields: 'standard_enrichment', results }, null, 2));
}
