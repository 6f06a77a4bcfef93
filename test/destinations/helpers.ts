/** Lookups the outbound-target policy would hand destinations: loopback-only, and one that refuses. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DeliveryPart, LookupFunction } from '../../src/destinations/index.ts';

export const lookedUp: string[] = [];

export const loopbackOnly: LookupFunction = (hostname, _options, callback) => {
  lookedUp.push(hostname);
  if (hostname === '127.0.0.1' || hostname === 'localhost') return callback(null, '127.0.0.1', 4);
  callback(Object.assign(new Error(`outbound target ${hostname} is not allowed`), { code: 'OUTBOUND_TARGET_BLOCKED' }), '', 0);
};

export const refuseAll: LookupFunction = (hostname, _options, callback) => {
  lookedUp.push(hostname);
  callback(Object.assign(new Error(`outbound target ${hostname} is not allowed`), { code: 'OUTBOUND_TARGET_BLOCKED' }), '', 0);
};

/** A TCP server that only counts connections (to prove none was opened). */
export async function connectionCounter(): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: () => n,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Export-like part files with deterministic contents; the last is `bigBytes` long (multipart). */
export function makeParts(bigBytes: number): { dir: string; parts: DeliveryPart[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-parts-'));
  const contents = [
    Buffer.from('iag_person_id,age\nT_01_AAAA,41\nT_01_BBBB,\n'),
    Buffer.from('iag_person_id,age\nT_01_CCCC,29\n'),
    Buffer.from(Array.from({ length: bigBytes }, (_, i) => (i * 7919) % 251)),
  ];
  const parts = contents.map((data, i) => {
    const name = `part-${String(i).padStart(5, '0')}.csv`;
    fs.writeFileSync(path.join(dir, name), data);
    return { path: path.join(dir, name), name, bytes: data.length };
  });
  return { dir, parts };
}
