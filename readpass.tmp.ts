import { shardReader, sampleShard } from './src/modules/file-match/formats/read.ts';
import { analyzeColumns } from './src/modules/file-match/analysis.ts';
import { compileMapping } from './src/modules/file-match/records.ts';
import { normalizeMatchInput } from './src/identity/normalize/record.ts';
import { stageLines, variantsCache } from './src/identity/matcher/stage-lines.ts';
const file = '/work/scratch/mixed.csv';
const sample = await sampleShard(file, 'csv', 'none', 1000);
const { toRecord } = compileMapping(analyzeColumns(sample.header, sample.rows).column_mappings);
const today = new Date();
const v = variantsCache();
let tp = 0, tn = 0, ts = 0, nk = 0, n = 0;
let batch: Record<string, unknown>[] = [];
let t = performance.now();
const T0 = t;
const flush = () => {
  let a = performance.now();
  const norm = batch.map((rec, i) => normalizeMatchInput(rec, { position: n + i + 1, today }));
  let b = performance.now(); tn += b - a;
  nk += stageLines(norm, n, null, v).keys.length;
  ts += performance.now() - b;
  n += batch.length; batch = [];
};
let pa = performance.now();
for await (const row of shardReader(file, 'csv', 'none', 0).rows()) {
  batch.push(toRecord(row));
  if (batch.length === 2000) { tp += performance.now() - pa; flush(); pa = performance.now(); }
}
flush();
console.log({ parse_map: (tp / 1000).toFixed(2), normalize: (tn / 1000).toFixed(2), stageLines: (ts / 1000).toFixed(2), total: ((performance.now() - T0) / 1000).toFixed(2), nk });
