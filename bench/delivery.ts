/**
 * A delivery end to end over HTTP (issue #14, small): a filter audience of about `rows` members, then
 * POST /v1/audiences/{id}/deliveries (download, standard_enrichment) in each format, timed from the
 * request to the delivery read back `completed` (quote, reservation, job pickup, export, object store,
 * charge, event), plus the signed-URL download of the parts. Peak RSS is the whole process (API and
 * worker in one, as `ads serve` runs). Prints JSON.
 *
 *   flock /work/bench.lock npx tsx bench/delivery.ts [--data-dir .bench/delivery-data] [--formats csv,csv.gz,jsonl,avro] [--min-age 38]
 *
 * Generate the graph first: npx tsx bench/graph-generate.ts --persons 200000 --data-dir .bench/delivery-data
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCurrentRelease } from '../src/graph/releases.ts';
import { startWorkerBenchApp } from './lib/worker-app.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.bench/delivery-data' },
    formats: { type: 'string', default: 'csv,csv.gz,jsonl,avro' },
    // 38 selects about half of a generated graph; 0 nearly all of it (about 1M members of the 1M graph).
    'min-age': { type: 'string', default: '38' },
  },
});
const dataDir = path.resolve(values['data-dir']!);
if (!readCurrentRelease(dataDir)) throw new Error(`no release in ${dataDir}; run bench/graph-generate.ts first`);

const { app, call, close } = await startWorkerBenchApp({ dataDir });

// About 100k members of the 200k-person bench graph.
const seg = await call('POST', '/v1/segments', { name: 'bench', filters: [{ field: 'age', op: '>=', value: Number(values['min-age']) }] });
const results: Record<string, unknown>[] = [];
for (const f of values.formats!.split(',')) {
  // Each format on its own audience (same members): a second identical request would be a free re-delivery.
  const aud = (await call('POST', '/v1/audiences', { name: `bench ${f}`, segment_ids: [seg.segment_id] })).audience_id as string;
  const [format, gz] = f.split('.');
  const t0 = performance.now();
  const created = await call('POST', `/v1/audiences/${aud}/deliveries`, {
    output_format: format,
    output_compression: gz ? 'gzip' : 'none',
  });
  let d = created;
  while (d.status === 'processing') {
    await new Promise((r) => setTimeout(r, 20));
    d = await call('GET', `/v1/audiences/${aud}/deliveries/${created.delivery_id}`);
  }
  const ms = performance.now() - t0;
  if (d.status !== 'completed') throw new Error(`delivery ${f} ${d.status}: ${d.failure_reason}`);
  const t1 = performance.now();
  let bytes = 0;
  // Streamed: a 1M-row JSON part (~700 MB) is more than one JS string can hold.
  for (const url of d.download_urls as string[]) {
    const res = await app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, ''), payloadAsStream: true });
    for await (const chunk of res.stream()) bytes += (chunk as Buffer).length;
  }
  results.push({
    format: f,
    rows: d.output_record_count,
    ms: Math.round(ms),
    rows_per_s: Math.round(d.output_record_count / (ms / 1000)),
    output_bytes: d.output_bytes,
    parts: d.download_urls.length,
    download_ms: Math.round(performance.now() - t1),
    downloaded_bytes: bytes,
    cost: d.cost,
  });
}
console.log(
  JSON.stringify(
    {
      results,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    null,
    1,
  ),
);
await close();
