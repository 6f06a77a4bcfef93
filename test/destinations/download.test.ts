import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDestinationRegistry, downloadObjectKey } from '../../src/destinations/index.ts';
import { ObjectStore } from '../../src/objects/store.ts';
import { makeParts, refuseAll } from './helpers.ts';

describe('download destination and the registry', () => {
  it('puts parts into the object store layout and returns their keys; a retry replaces them', async () => {
    const store = new ObjectStore(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-store-')));
    const registry = createDestinationRegistry({ store });
    expect([...registry.keys()]).toEqual(['download', 'sftp', 's3']);
    const download = registry.get('download')!;
    const { parts } = makeParts(1000);
    const config = download.checkConfig({});
    // No network at all: even a lookup that refuses everything does not matter.
    await download.testConnection(config, download.checkSecrets(undefined), { lookup: refuseAll });
    const delivered = await download.upload(parts, { orgId: 'org_9', deliveryId: 'dlv_d' }, config, null, { lookup: refuseAll });
    expect(delivered.map((d) => d.location)).toEqual(parts.map((p) => `deliveries/org_9/dlv_d/${p.name}`));
    expect(downloadObjectKey('org_9', 'dlv_d', 'part-00000.csv')).toBe('deliveries/org_9/dlv_d/part-00000.csv');
    for (const p of parts) expect(fs.readFileSync(store.pathOf(`deliveries/org_9/dlv_d/${p.name}`))).toEqual(fs.readFileSync(p.path));
    await download.upload(parts, { orgId: 'org_9', deliveryId: 'dlv_d' }, config, null, { lookup: refuseAll });
    expect(fs.readdirSync(store.pathOf('deliveries/org_9/dlv_d')).sort()).toEqual(parts.map((p) => p.name).sort());
    expect(() => download.checkConfig({ bucket: 'x' })).toThrow('config.bucket is not a known setting');
  });
});
