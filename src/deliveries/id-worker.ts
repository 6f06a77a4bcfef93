/**
 * Id worker thread (ids.ts): hashes of tier 01 ids for chunks of person keys, off the main thread.
 * Gets the organization's two keys as workerData; each message is one chunk's keys, each reply its
 * 26-byte hashes, both transferred (no copy between threads).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { graphPersonIdHashes } from '../identity/person-id-batch.ts';
import type { IdReply, IdRequest, IdSlicesRequest } from './ids.ts';

const data = workerData as { encKey: Uint8Array; macKey: Uint8Array };
const core = graphPersonIdHashes(Buffer.from(data.encKey), Buffer.from(data.macKey));

/** Claims slices from the front until none is left (the main thread claims the ones it needs first). */
function hashSlices(m: IdSlicesRequest): void {
  const keys = new BigInt64Array(m.keys, 0, m.count);
  const next = new Int32Array(m.next);
  const slices = Math.ceil(m.count / m.sliceRows);
  for (let s = Atomics.add(next, 0, 1); s < slices; s = Atomics.add(next, 0, 1)) {
    const count = Math.min(m.sliceRows, m.count - s * m.sliceRows);
    const text = core.hashes(keys.subarray(s * m.sliceRows), count);
    const out = new Uint8Array(text.length);
    out.set(text);
    parentPort!.postMessage({ id: s, text: out.buffer } satisfies IdReply, [out.buffer]);
  }
}

parentPort!.on('message', (m: IdRequest | IdSlicesRequest) => {
  if ('slices' in m) {
    try {
      hashSlices(m);
    } catch (error) {
      // Every slice still unanswered fails with it (the main thread's wait for them ends).
      for (let s = 0; s < Math.ceil(m.count / m.sliceRows); s++) {
        parentPort!.postMessage({ id: s, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies IdReply);
      }
    }
    return;
  }
  let reply: IdReply;
  try {
    const text = core.hashes(new BigInt64Array(m.keys), m.count);
    const out = new Uint8Array(text.length);
    out.set(text);
    reply = { id: m.id, text: out.buffer };
  } catch (error) {
    reply = { id: m.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply, reply.text ? [reply.text] : []);
});
