/**
 * Rendered rows in the service: the warm-up renders the configured templates' rows beside the current
 * release (EXPORT_RENDERED_ROWS, default standard_enrichment in csv and avro), and an audience delivery
 * of such a template and format then copies them: the same bytes as the row-by-row export before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cond } from '../segments/setup.ts';
import { testGraph } from '../segments/graph.ts';
import { setupDeliveries, type DeliveryTest } from './api-setup.ts';

let d: DeliveryTest;
let dataDir: string;

beforeAll(async () => {
  // A private copy of the test graph: this file writes (and alters) sidecars of its release.
  const g = await testGraph();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-rendered-'));
  fs.cpSync(path.join(g.dataDir, 'warehouse'), path.join(dataDir, 'warehouse'), { recursive: true });
  for (const f of fs.readdirSync(path.join(dataDir, 'warehouse', 'releases'))) {
    if (f.includes('.rows-')) fs.rmSync(path.join(dataDir, 'warehouse', 'releases', f));
  }
  d = await setupDeliveries({ dataDir });
}, 180_000);
afterAll(async () => {
  await d?.close();
});

/** A fresh audience of every person (a new audience each time: an identical one would be a free re-delivery). */
const everyone = () => d.audience([cond('age', '>=', 0)]);
async function deliveredBytes(body: Record<string, unknown> = {}): Promise<Buffer> {
  const audience = await everyone();
  const res = await d.deliver(audience, body);
  expect(res.status).toBe(202);
  const done = await d.waitDone(audience, res.body.delivery_id);
  expect(done.status).toBe('completed');
  return (await d.download(done.download_urls[0])).raw;
}

describe('rendered rows in deliveries', () => {
  it('the warm-up renders standard_enrichment in csv and avro beside the release; deliveries then copy them, byte for byte as before', async () => {
    const before = { csv: await deliveredBytes(), avro: await deliveredBytes({ output_format: 'avro' }) };
    const built = await d.t.services.deliveries.warmRenderedRows();
    expect(
      built.map((b) => [
        path
          .basename(b.path)
          .replace(/^.*\.rows-v1-/, '')
          .replace(/-[0-9a-f]{16}\.bin$/, ''),
        b.built,
      ]),
    ).toEqual([
      ['csv', true],
      ['avro', true],
    ]);
    for (const b of built) expect(path.dirname(b.path)).toBe(path.join(dataDir, 'warehouse', 'releases'));
    expect((await d.t.services.deliveries.warmRenderedRows()).map((b) => b.built)).toEqual([false, false]);

    expect((await deliveredBytes()).equals(before.csv)).toBe(true);
    expect((await deliveredBytes({ output_format: 'avro' })).equals(before.avro)).toBe(true);

    // The delivery reads the rendered file: a byte changed in person 1's row shows in the next one.
    const csvFile = built[0]!.path;
    const bytes = fs.readFileSync(csvFile);
    bytes[0] = '~'.charCodeAt(0);
    fs.writeFileSync(`${csvFile}.new`, bytes);
    fs.renameSync(`${csvFile}.new`, csvFile);
    const line = (await deliveredBytes()).toString('utf8').split('\n')[1]!;
    expect(line).toMatch(/^[A-Z0-9]+_01_[A-Z2-7]{26},~/);
  });
});
