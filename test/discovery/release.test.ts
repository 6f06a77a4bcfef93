import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { readCurrentRelease, releaseFilePath, writeCurrentRelease } from '../../src/graph/releases.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { generateTestGraph } from './graph.ts';

describe('data release and warehouse unavailability', () => {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  let empty: TestApp;
  let t: TestApp;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ads-disc-'));
    empty = await testApp({ clock });
    await generateTestGraph(dataDir, 2000);
    t = await testApp({ clock, config: { dataDir } });
  });
  afterAll(async () => {
    await empty.app.close();
    await t.app.close();
  });

  const get = async (app: TestApp, url: string) => {
    const token = await (await createTestOrg(app)).token(['discovery']);
    return app.app.inject({ method: 'GET', url, headers: bearer(token) });
  };

  it('503 with next_step while no release exists (registry, count and catalog)', async () => {
    const res = await get(empty, '/v1/data-release');
    expect(res.statusCode).toBe(503);
    expect(res.json().next_step).toMatch(/retry/i);
    const token = await (await createTestOrg(empty)).token(['discovery']);
    const count = await empty.app.inject({
      method: 'POST',
      url: '/v1/discovery/count',
      headers: bearer(token),
      payload: { filters: [{ field: 'state', op: '=', value: 'CA' }] },
    });
    expect(count.statusCode).toBe(503);
    expect(count.json().next_step).toBeTruthy();
    const catalog = await get(empty, '/v1/catalog/fields');
    expect(catalog.statusCode).toBe(502);
    expect(catalog.json().error).toBe('FILTER_CATALOG_UNAVAILABLE');
  });

  it('GET /v1/data-release: the snapshot holds for 15 minutes, then refreshes', async () => {
    const first = await get(t, '/v1/data-release');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ current_release_major: 1, current_release_minor: 0, as_of: '2026-03-01T12:00:00.000Z' });
    const info = readCurrentRelease(dataDir)!;
    writeCurrentRelease(dataDir, { ...info, minor: 1 });
    clock.advance(14 * 60 * 1000);
    expect((await get(t, '/v1/data-release')).json().current_release_minor).toBe(0);
    clock.advance(2 * 60 * 1000);
    const refreshed = (await get(t, '/v1/data-release')).json();
    expect(refreshed).toEqual({ current_release_major: 1, current_release_minor: 1, as_of: '2026-03-01T12:16:00.000Z' });
    writeCurrentRelease(dataDir, info);
  });

  it('a release file that disappeared answers 502 BQ_TABLE_MISSING with no engine text', async () => {
    const info = readCurrentRelease(dataDir)!;
    const gone = { ...info, file: 'graph-9.9-missing.duckdb' };
    writeCurrentRelease(dataDir, gone);
    try {
      const token = await (await createTestOrg(t)).token(['discovery']);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/discovery/count',
        headers: bearer(token),
        payload: { filters: [{ field: 'state', op: '=', value: 'CA' }] },
      });
      expect(res.statusCode).toBe(502);
      expect(res.json().error).toBe('BQ_TABLE_MISSING');
      expect(res.body).not.toMatch(/duckdb|IO Error|Catalog Error|graph-9\.9/i);
    } finally {
      writeCurrentRelease(dataDir, info);
      expect(fs.existsSync(releaseFilePath(dataDir, info))).toBe(true);
    }
  });

  it('a release of the old layout (no discovery table) is refused typed, naming the fix, until a new release', async () => {
    const info = readCurrentRelease(dataDir)!;
    const old = { ...info, file: 'graph-1.0-old-layout.duckdb' };
    fs.copyFileSync(releaseFilePath(dataDir, info), releaseFilePath(dataDir, old));
    const db = await DuckDBInstance.create(releaseFilePath(dataDir, old));
    const c = await db.connect();
    await c.run('DROP TABLE discovery_persons; DROP TABLE breakdown_codes; CHECKPOINT');
    c.closeSync();
    db.closeSync();
    writeCurrentRelease(dataDir, old);
    await t.services.warehouse.refresh();
    try {
      clock.advance(16 * 60 * 1000);
      const catalog = await get(t, '/v1/catalog/fields');
      expect(catalog.statusCode).toBe(502);
      expect(catalog.json().error).toBe('FILTER_CATALOG_UNAVAILABLE');
      const token = await (await createTestOrg(t)).token(['discovery']);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/discovery/count',
        headers: bearer(token),
        payload: { filters: [{ field: 'state', op: '=', value: 'CA' }] },
      });
      expect([res.statusCode, res.json().error]).toEqual([502, 'FILTER_CATALOG_UNAVAILABLE']);
      expect(res.body).not.toMatch(/duckdb|Catalog Error|discovery_persons/i);
    } finally {
      writeCurrentRelease(dataDir, info);
      await t.services.warehouse.refresh();
    }
    expect((await get(t, '/v1/catalog/fields')).statusCode).toBe(200);
  });
});
