/**
 * Id worker thread (ids.ts): hashes of tier 01 ids for chunks of person keys, off the main thread.
 * Gets the organization's two keys as workerData; each message is one chunk's keys, each reply its
 * 26-byte hashes, both transferred (no copy between threads).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { graphPersonIdHashes } from '../identity/person-id-batch.ts';
import type { IdReply, IdRequest } from './ids.ts';

const data = workerData as { encKey: Uint8Array; macKey: Uint8Array };
const core = graphPersonIdHashes(Buffer.from(data.encKey), Buffer.from(data.macKey));

parentPort!.on('message', (m: IdRequest) => {
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
