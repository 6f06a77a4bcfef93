/**
 * A large upload through the signed URL: a client process PUTs a generated CSV of --gb GiB (default
 * 1.1) over a real port to a hitl file match (so it lands in staging and no resolution starts); reports
 * the time, MB/s and the service process's peak RSS during the upload against its RSS before: the
 * body streams to the object store and never sits whole in memory (issue #7).
 *
 *   npx tsx bench/upload.ts [--gb 1.1] [--graph-dir .bench/match-data]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startBenchApp } from './lib/app.ts';

const i = process.argv.indexOf('--gb');
const gib = i > 0 ? Number(process.argv[i + 1]) : 1.1;
const target = Math.round(gib * 2 ** 30);
// A file match needs a published release: the 200k graph of bench/match-quality.ts, linked read-only.
const g = process.argv.indexOf('--graph-dir');
const graphDir = path.resolve(g > 0 ? process.argv[g + 1]! : '.bench/match-data');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-upload-'));
fs.symlinkSync(path.join(graphDir, 'warehouse'), path.join(dataDir, 'warehouse'));
const b = await startBenchApp({ dataDir, scopes: ['discovery', 'creator'], env: { PUBLIC_URL: 'http://127.0.0.1:1' } });
await b.queue.start(); // the upload's receipt transaction writes to the job queue's tables
const auth = { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' };
const res = await fetch(`${b.address}/v1/match/file`, { method: 'POST', headers: auth, body: JSON.stringify({ hitl: true }) });
const created = (await res.json()) as { segment_id: string; upload_url: string };
if (res.status !== 201 && res.status !== 200) throw new Error(`create ${res.status}: ${JSON.stringify(created)}`);

// The client runs in a child process (its buffers are not the service's): it generates the CSV as it
// sends it, 1 MiB chunks over http.request with backpressure, never the whole file.
const CLIENT = `
const http = require('node:http');
const [url, target] = [process.argv[1], Number(process.argv[2])];
const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'text/csv' } }, (res) => {
  let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => { console.log(JSON.stringify({ status: res.statusCode, body, sent, rows: n })); });
});
let sent = 0, n = 0;
const write = () => {
  for (;;) {
    let chunk = sent === 0 ? 'row_id,email,first_name,last_name,zip\\n' : '';
    while (chunk.length < 1 << 20) { chunk += 'r' + n + ',person' + n + '@example.com,First' + (n % 997) + ',Last' + (n % 991) + ',' + String(10000 + (n % 89999)).padStart(5, '0') + '\\n'; n++; }
    sent += chunk.length;
    if (sent >= target) { req.end(chunk); return; }
    if (!req.write(chunk)) { req.once('drain', write); return; }
  }
};
write();`;
global.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 50);
const t0 = performance.now();
const uploadUrl = created.upload_url.replace(/^https?:\/\/[^/]+/, b.address);
const client = spawn(process.execPath, ['-e', CLIENT, uploadUrl, String(target)], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
client.stdout.on('data', (c) => (out += c));
await once(client, 'exit');
const put = JSON.parse(out) as { status: number; body: string; sent: number; rows: number };
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const status = (await (await fetch(`${b.address}/v1/match/file/${created.segment_id}`, { headers: auth })).json()) as Record<
  string,
  unknown
>;
if (put.status !== 200) throw new Error(`PUT ${put.status}: ${put.body}`);
const stored = fs
  .readdirSync(b.services.fileMatch.objects.root, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => fs.statSync(path.join(e.parentPath, e.name)).size)
  .sort((x, y) => y - x)[0];
console.log(
  JSON.stringify(
    {
      put_status: put.status,
      matching_status: status.matching_status,
      bytes_sent: put.sent,
      rows: put.rows,
      largest_stored_object_bytes: stored,
      seconds: Math.round(seconds * 100) / 100,
      mb_per_s: Math.round(put.sent / 2 ** 20 / seconds),
      rss_before_mib: Math.round(before / 2 ** 20),
      peak_rss_during_upload_mib: Math.round(peak / 2 ** 20),
    },
    null,
    1,
  ),
);
await b.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
