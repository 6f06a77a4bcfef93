/**
 * The file path's two passes without HTTP, pg-boss or results (issue #15): the mixed file (lib/mixed-file.ts) read,
 * mapped and staged as resolve.ts does (csv reader, column mapping, the staging pool), then the candidate statement
 * (candidates.ts, packed, in order of r) streamed to the end against the graph's match index, `--runs` times.
 * `--profile` prints DuckDB's operator timings of one more run. Prints JSON; record it in docs/benchmarks.md.
 *
 *   npx tsx bench/match-candidates.ts [--graph-dir .bench/data] [--rows 1000000] [--runs 2] [--memory-limit 2GB] [--profile]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { lit } from '../src/graph/duck.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { buildMatchIndex, createStagePool, createStageWriter, type StagedLines } from '../src/identity/matcher/index.ts';
import { candidateSql } from '../src/identity/matcher/candidates.ts';
import { analyzeColumns } from '../src/modules/file-match/analysis.ts';
import { sampleShard, shardReader } from '../src/modules/file-match/upload-formats/read.ts';
import { compileMapping } from '../src/modules/file-match/records.ts';
import { mixedFileSql } from './lib/mixed-file.ts';

const { values } = parseArgs({
  options: {
    'graph-dir': { type: 'string', default: '.bench/data' },
    rows: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '2' },
    'memory-limit': { type: 'string', default: '2GB' },
    profile: { type: 'boolean', default: false },
  },
});
const graphDir = path.resolve(values['graph-dir']!);
const info = readCurrentRelease(graphDir);
if (!info) throw new Error(`no release under ${graphDir}; run bench/graph-generate.ts first`);
const release = releaseFilePath(graphDir, info);
const indexPath = await buildMatchIndex(release);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-cand-'));
const csv = path.join(scratch, 'input.csv');
const inst = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: values['memory-limit']! });
const c = await inst.connect();
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
try {
  await c.run(`ATTACH ${lit(release)} AS g (READ_ONLY)`);
  await c.run(mixedFileSql('g', Number(values.rows), csv));

  // Read pass: parse + map on this thread, normalize + format in the staging pool, append (resolve.ts pass 1).
  let t = performance.now();
  let c0 = cpu();
  const sample = await sampleShard(csv, 'csv', 'none', 1000);
  const { toRecord } = compileMapping(analyzeColumns(sample.header, sample.rows).column_mappings);
  const pool = createStagePool();
  const writer = createStageWriter(path.join(scratch, 'stage'));
  const inflight: Promise<StagedLines>[] = [];
  let batch: Record<string, unknown>[] = [];
  let read = 0;
  const send = async () => {
    if (batch.length)
      inflight.push(
        pool.stage(
          batch,
          read - batch.length,
          batch.map(() => null),
          new Date(),
        ),
      );
    batch = [];
    while (inflight.length > 8) writer.addLines(await inflight.shift()!);
  };
  for await (const row of shardReader(csv, 'csv', 'none', 0).rows()) {
    batch.push(toRecord(row));
    if (++read % 2000 === 0) await send();
  }
  await send();
  for (const lines of await Promise.all(inflight.splice(0))) writer.addLines(lines);
  await pool.close();
  const staged = writer.close();
  // CPU of the whole process: this thread, the staging workers and DuckDB's reader threads.
  const readPass = {
    seconds: Math.round(performance.now() - t) / 1000,
    process_cpu_s: Math.round((cpu() - c0) * 100) / 100,
    rows: staged.rowCount,
    keys: staged.keyCount,
  };

  await c.run(`ATTACH ${lit(indexPath)} AS mx (READ_ONLY)`);
  const sql = `${candidateSql({ rowSql: staged.rowSql, keySql: staged.keySql, mx: 'mx' })} ORDER BY r`;
  const drain = async () => {
    const res = await c.stream(sql);
    let n = 0;
    for (let chunk = await res.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await res.fetchChunk()) n += chunk.rowCount;
    return n;
  };
  const statement: { seconds: number; candidates: number }[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    t = performance.now();
    const candidates = await drain();
    statement.push({ seconds: Math.round(performance.now() - t) / 1000, candidates });
  }
  let operators: { operator: string; seconds: number; rows: number }[] | undefined;
  if (values.profile) {
    const out = path.join(scratch, 'profile.json');
    await c.run(`PRAGMA enable_profiling = 'json'`);
    await c.run(`PRAGMA profiling_output = ${lit(out)}`);
    await drain();
    await c.run('PRAGMA disable_profiling');
    type Node = {
      operator_name?: string;
      operator_type?: string;
      operator_timing?: number;
      operator_cardinality?: number;
      children?: Node[];
    };
    const flat: { operator: string; seconds: number; rows: number }[] = [];
    const walk = (n: Node) => {
      flat.push({
        operator: n.operator_name ?? n.operator_type ?? '?',
        seconds: Math.round((n.operator_timing ?? 0) * 100) / 100,
        rows: n.operator_cardinality ?? 0,
      });
      for (const ch of n.children ?? []) walk(ch);
    };
    walk(JSON.parse(fs.readFileSync(out, 'utf8')) as Node);
    operators = flat.filter((o) => o.seconds >= 0.2).sort((a, b) => b.seconds - a.seconds);
  }
  console.log(
    JSON.stringify(
      { release: path.basename(release), memory_limit: values['memory-limit'], read_pass: readPass, statement, operators },
      null,
      1,
    ),
  );
} finally {
  c.closeSync();
  inst.closeSync();
  fs.rmSync(scratch, { recursive: true, force: true });
}
