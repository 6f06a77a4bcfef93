/**
 * What the tool (MCP) and agent (A2A) adapters add to an operation: the same call, sequentially, over
 * REST, as an MCP tools/call (raw stateless POST, and through the official client SDK), and as an A2A
 * SendMessage (which also persists a task). The real app on a loopback port, a small generated graph,
 * the embedded control plane. Reports p50/p95 per path and the overhead against REST.
 *
 *   npx tsx bench/agents.ts [--persons 20000] [--requests 300]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateGraph } from '../src/graph/generate.ts';
import { startJobs } from '../src/jobs/worker.ts';
import { startBenchApp } from './lib/app.ts';

const { values } = parseArgs({ options: { persons: { type: 'string', default: '20000' }, requests: { type: 'string', default: '300' } } });
const requests = Number(values.requests);
const dataDir = mkdtempSync(path.join(tmpdir(), 'ads-bench-agents-'));
await generateGraph({ dataDir, persons: Number(values.persons), seed: 5, releaseDate: '2026-01-01', threads: 1, memoryLimit: '512MB' });
const { address, token, close, queue, services } = await startBenchApp({ dataDir, scopes: ['discovery', 'creator'] });
// As `ads serve` does: the job queues exist (a segment create enqueues its count); no worker runs.
await queue.start();
await startJobs(queue, services.jobDefinitions(), { work: false });
const auth = { authorization: `Bearer ${token}` };

const post = async (url: string, body: object, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  // An MCP answer may be an SSE stream of one event: `event: message` then `data: {...}`.
  return JSON.parse(text.startsWith('event:') ? text.slice(text.indexOf('data: ') + 6) : text) as Record<string, unknown>;
};

const segment = await post(`${address}/v1/segments`, { name: 'bench', filters: [{ field: 'state', op: '=', value: 'CA' }] });
const segmentId = segment.segment_id as string;
const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: auth } }));

type Path = [name: string, run: () => Promise<unknown>];
const ops: Record<string, Path[]> = {
  get_segment: [
    [
      'rest',
      async () => {
        const r = await fetch(`${address}/v1/segments/${segmentId}`, { headers: auth });
        if (r.status !== 200) throw new Error(String(r.status));
        await r.text();
      },
    ],
    [
      'mcp_raw_post',
      async () => {
        const r = await post(
          `${address}/mcp`,
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_segment', arguments: { id: segmentId } } },
          { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        );
        if (
          (r.result as { isError?: boolean } | undefined)?.isError !== false &&
          !(r.result as { structuredContent?: unknown })?.structuredContent
        )
          throw new Error(JSON.stringify(r));
      },
    ],
    [
      'mcp_sdk_client',
      async () => {
        const r = await client.callTool({ name: 'get_segment', arguments: { id: segmentId } });
        if (r.isError) throw new Error(JSON.stringify(r.content));
      },
    ],
    [
      'a2a_send_message',
      async () => {
        const r = await post(
          `${address}/agent/a2a`,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: {
              message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { tool: 'get_segment', arguments: { id: segmentId } } }] },
            },
          },
          { 'a2a-version': '1.0' },
        );
        if (r.error) throw new Error(JSON.stringify(r.error));
      },
    ],
  ],
};

const pct = (xs: number[], p: number) =>
  Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 100) / 100;
const results: Record<string, Record<string, { p50_ms: number; p95_ms: number; mean_ms: number }>> = {};
// Interleaved (each round runs every path once, in a rotating order) so a shared machine's load
// swings touch every path alike.
for (const [op, paths] of Object.entries(ops)) {
  for (let i = 0; i < 20; i++) for (const [, run] of paths) await run(); // warm-up
  const times = paths.map(() => [] as number[]);
  for (let i = 0; i < requests; i++) {
    for (let k = 0; k < paths.length; k++) {
      const j = (i + k) % paths.length;
      const t0 = performance.now();
      await paths[j]![1]();
      times[j]!.push(performance.now() - t0);
    }
  }
  results[op] = Object.fromEntries(
    paths.map(([name], j) => [
      name,
      {
        p50_ms: pct(times[j]!, 0.5),
        p95_ms: pct(times[j]!, 0.95),
        mean_ms: Math.round((times[j]!.reduce((a, b) => a + b, 0) / requests) * 100) / 100,
      },
    ]),
  );
}
await client.close();
await close();
console.log(JSON.stringify({ persons: Number(values.persons), requests, sequential: true, results }, null, 1));
