import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WarehouseTimeoutError } from '../../src/graph/errors.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { FILTER_BOUNDS } from '../../src/graph/filters/index.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { generateTestGraph } from '../discovery/graph.ts';

/**
 * Warehouse statements of a question are interrupted past WAREHOUSE_STATEMENT_TIMEOUT_MS: the engine
 * stops (it does not run on in the background) and the caller gets 503 QUERY_TIMEOUT in the envelope.
 */
let dataDir: string;
let warehouse: Warehouse;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ads-timeout-'));
  await generateTestGraph(dataDir);
  warehouse = await openWarehouse({ dataDir, connections: 1 });
});

describe('statement timeout', () => {
  it('interrupts a statement that would run for minutes, and the connection serves the next one', async () => {
    // Ten billion rows: minutes of work, stopped after 200 ms.
    const error = await warehouse
      .query('SELECT count(*) AS n FROM range(10000000000) t(i) WHERE i % 7 = 3', [], { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WarehouseTimeoutError);
    expect((error as WarehouseTimeoutError).timeoutMs).toBe(200);
    // One pooled connection: the interrupted one answers again.
    expect(await warehouse.query('SELECT 41 + 1 AS n', [], { timeoutMs: 200 })).toEqual([{ n: 42 }]);
  });

  it('without a timeout (jobs, exports) a statement is not interrupted', async () => {
    expect(await warehouse.query('SELECT count(*) AS n FROM range(1000000) t(i)')).toEqual([{ n: 1_000_000 }]);
  });

  it('over HTTP: a question past the timeout is 503 QUERY_TIMEOUT in the envelope', async () => {
    await warehouse.close(); // one warehouse client per process, as in the service
    const t: TestApp = await testApp({
      config: { dataDir, limits: { ...(await import('../../src/config/index.ts')).loadConfig({}).limits, warehouseStatementTimeoutMs: 1 } },
    });
    try {
      const token = await (await createTestOrg(t)).token(['discovery']);
      const heavy = Array.from({ length: FILTER_BOUNDS.groups }, (_, i) => ({
        id: `g${i}`,
        combinator: 'OR',
        filters: Array.from({ length: FILTER_BOUNDS.conditions / FILTER_BOUNDS.groups }, (_, j) => ({
          field: 'city',
          op: 'LIKE',
          value: `%${'AEIOU'[j]}%${'AEIOU'[(i + j) % 5]}%`,
        })),
      }));
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/discovery/count',
        headers: bearer(token),
        payload: { filter_groups: heavy, group_by: 'state' },
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(503);
      expect(res.json()).toMatchObject({ error: 'QUERY_TIMEOUT', request_id: expect.stringMatching(/^req_/) });
      expect(res.json().next_step).toContain('Narrow');

      // Outside discovery: segment and audience counting run under the same timeout. The segment is
      // created (its definition is valid) with record_count null and count_failed, and no recount is
      // queued (it would be stopped again); asking an audience to count now is 503 QUERY_TIMEOUT.
      const creator = await (await createTestOrg(t)).token(['discovery', 'creator']);
      const call = (method: 'POST' | 'GET', url: string, payload?: object) =>
        t.app.inject({ method, url, headers: bearer(creator), ...(payload ? { payload } : {}) });
      const seg = await call('POST', '/v1/segments', { name: 'heavy', filter_groups: heavy, create_audience: true });
      expect(seg.statusCode, seg.body.slice(0, 300)).toBe(201);
      expect(seg.json()).toMatchObject({ record_count: null, record_count_reason: 'count_failed' });
      // Its wrapper audience takes the segment's stored outcome; a composition is counted when asked.
      expect((await call('GET', `/v1/audiences/${seg.json().audience_id}`)).json()).toMatchObject({
        record_count: null,
        record_count_reason: 'count_failed',
      });
      const other = await call('POST', '/v1/segments', { name: 'texas', filters: [{ field: 'state', op: '=', value: 'TX' }] });
      expect(other.statusCode, other.body.slice(0, 300)).toBe(201);
      const aud = await call('POST', '/v1/audiences', {
        name: 'heavy or texas',
        segment_ids: [seg.json().segment_id, other.json().segment_id],
      });
      expect(aud.statusCode, aud.body.slice(0, 300)).toBe(201);
      const counted = await call('POST', `/v1/audiences/${aud.json().audience_id}/count`);
      expect(counted.statusCode, counted.body.slice(0, 300)).toBe(503);
      expect(counted.json()).toMatchObject({ error: 'QUERY_TIMEOUT', request_id: expect.stringMatching(/^req_/) });
      expect(counted.json().next_step).toContain('Narrow');
      expect((await call('GET', `/v1/audiences/${aud.json().audience_id}`)).json()).toMatchObject({
        record_count: null,
        record_count_reason: 'count_failed',
      });
    } finally {
      await t.app.close();
    }
  });
});
