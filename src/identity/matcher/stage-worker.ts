/**
 * Staging worker thread (stage-pool.ts): normalizes a batch of mapped input records and formats
 * their staged lines. Runs the same normalizeMatchInput and stageLines as the main thread would.
 */
import { parentPort } from 'node:worker_threads';
import { enableMemos } from '../../lib/memo.ts';
import { normalizeMatchInput } from '../normalize/record.ts';
import { stageLines, variantsCache } from './stage-lines.ts';
import type { StageReply, StageRequest } from './stage-pool.ts';

const varsOf = variantsCache();
// This thread lives for one file: names may be memoized here (src/lib/memo.ts).
enableMemos();

parentPort!.on('message', (m: StageRequest) => {
  let reply: StageReply;
  try {
    const today = new Date(m.today);
    const rows = m.records.map((rec, i) => normalizeMatchInput(rec, { position: m.base + i + 1, today }));
    reply = { id: m.id, lines: stageLines(rows, m.base, m.direct, varsOf) };
  } catch (error) {
    reply = { id: m.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(
    reply,
    reply.lines
      ? ([reply.lines.zips.buffer, reply.lines.rows.buffer, reply.lines.keys.buffer, reply.lines.streets.buffer] as ArrayBuffer[])
      : [],
  );
});
