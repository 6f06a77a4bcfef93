/**
 * File-matching throughput: normalize + matchBatch of one large batch (the file path: staged rows,
 * hash joins scored in SQL), end to end, with peak RSS.
 *
 *   npx tsx bench/match-throughput.ts [--data-dir .bench/match-data] [--rows 100000] [--memory-limit 2GB] [--threads 2]
 *
 * Input rows are labelled-set rows (graph persons with realistic damage plus absent people); at
 * most --unique of them are drawn from the graph and repeated (with new row ids) up to --rows.
 * Peak RSS is the process's (Node heap + DuckDB, which runs in-process).
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { streamChunks, streamRawChunks } from '../src/graph/duck.ts';
import { readCurrentRelease, releaseFilePath } from '../src/graph/releases.ts';
import { generateLabelledSet } from '../src/identity/matcher/labelled-set.ts';
import { buildMatchIndex } from '../src/identity/matcher/index-sidecar.ts';
import { createMatcher, type MatchWarehouse } from '../src/identity/matcher/matcher.ts';
import { normalizeMatchInput } from '../src/identity/normalize/record.ts';

const argv = process.argv;
const opt = (n: string, d: string) => (argv.indexOf(`--${n}`) > 0 ? argv[argv.indexOf(`--${n}`) + 1]! : d);
const dataDir = path.resolve(opt('data-dir', path.resolve(import.meta.dirname, '../.bench/match-data')));
const n = Number(opt('rows', '100000'));
const unique = Math.min(n, Number(opt('unique', '100000')));
const memoryLimit = opt('memory-limit', '2GB');
const threads = opt('threads', '2');

const info = readCurrentRelease(dataDir);
if (!info) throw new Error(`no current release under ${dataDir}`);
const releaseFile = releaseFilePath(dataDir, info);
const indexPath = await buildMatchIndex(releaseFile, { threads: 2 });

const inst = await DuckDBInstance.create(':memory:', { threads, memory_limit: memoryLimit });
const conn = await inst.connect();
await conn.run(`ATTACH '${releaseFile.replace(/'/g, "''")}' AS graph (READ_ONLY)`);
const wh: MatchWarehouse = {
  async query(sql) {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  },
  stream: (sql, onChunk) => streamChunks(conn, sql, onChunk),
  streamRaw: (sql, onChunk) => streamRawChunks(conn, sql, onChunk),
};

let t = performance.now();
const set = await generateLabelledSet(wh, 'graph', unique, 31);
const input = Array.from({ length: n }, (_, i) => ({ ...set[i % unique]!.record, row_id: `r${i + 1}` }));
console.log(
  `release ${info.file}: ${info.persons} persons; ${n} input rows (${unique} distinct) prepared in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

const matcher = createMatcher({ warehouse: wh, indexPath });
// Warm-up: ATTACH, anchors, first touch of the index (not counted).
await matcher.matchBatch(
  input.slice(0, 10).map((r, i) => normalizeMatchInput(r, { position: i + 1 })),
  { matchLevels: [], spatialMode: 'auto' },
);

const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const rows = input.map((r, i) => normalizeMatchInput(r, { position: i + 1 }));
const t1 = performance.now();
const res = await matcher.matchBatch(rows, { matchLevels: ['I', 'H', 'D', 'S', 'A'], spatialMode: 'auto' });
const t2 = performance.now();
const matched = res.filter((r) => r.matchLevel !== null).length;
const rate = (rowsN: number, ms: number) => `${Math.round(rowsN / (ms / 1000)).toLocaleString('en-US')} rows/s`;
console.log(`normalize: ${((t1 - t0) / 1000).toFixed(2)} s (${rate(n, t1 - t0)})`);
console.log(`match:     ${((t2 - t1) / 1000).toFixed(2)} s (${rate(n, t2 - t1)}); matched ${matched}/${n}`);
console.log(`end to end: ${((t2 - t0) / 1000).toFixed(2)} s (${rate(n, t2 - t0)})`);
const peak = process.resourceUsage().maxRSS / 1024; // KiB -> MiB
console.log(
  `peak RSS ${peak.toFixed(0)} MiB (RSS before the run ${(rssBefore / 2 ** 20).toFixed(0)} MiB); DuckDB memory_limit ${memoryLimit}, threads ${threads}`,
);
conn.closeSync();
inst.closeSync();
