/**
 * A2A tasks survive a restart (spec 4.10; ADR 035, 047): a task following a delivery is closed with its
 * app mid-work; a new app on the same stores (and a worker) shows it through to completion on GetTask
 * and SubscribeToTask, since its state is derived from the delivery on read; likewise a task following a
 * similarity segment whose workflow runs only in the new process. A task whose process
 * stopped while its operation ran fails with TASK_INTERRUPTED once the lease of that process lapsed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { LEASE_MS } from '../../src/modules/agent-tasks/index.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { testGraph } from '../segments/graph.ts';
import { waitFor } from '../webhooks/helpers.ts';

const CA = [{ field: 'state', op: '=', value: 'CA' }];
const start = new Date('2026-11-24T01:00:00Z');
let dataDir: string;
let first: TestApp;
let second: TestApp | null = null;
let third: TestApp | null = null;
let org: TestOrg;
let stopWorker: (() => Promise<void>) | null = null;
let stopModelWorker: (() => Promise<void>) | null = null;

const endpoint = (t: TestApp) => `${new URL(t.config.oauth.resources.a2a).pathname.replace(/\/+$/, '')}/a2a`;
let seq = 0;
async function rpc(t: TestApp, token: string, method: string, params: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: endpoint(t),
    headers: { ...bearer(token), 'a2a-version': '1.0', 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: ++seq, method, params },
  });
  return res.headers['content-type']?.toString().startsWith('text/event-stream')
    ? res.body
        .split('\n\n')
        .filter((b) => b.startsWith('data: '))
        .map((b) => JSON.parse(b.slice(6)))
    : res.json();
}
const message = (data: object, metadata: object = {}) => ({
  message: { messageId: `m-${++seq}`, role: 'ROLE_USER', parts: [{ data }] },
  metadata,
});

beforeAll(async () => {
  dataDir = (await testGraph()).dataDir;
  first = await testApp({ clock: new ManualClock(start), config: { dataDir } });
  // The delivery queue exists, as `ads serve` ensures it at start; its worker only runs in the second process.
  const def = first.services.deliveries.jobDefinitions()[0] as JobDefinition;
  await (await testStores()).queue.ensureQueue(def.name, def.queue);
  org = await createTestOrg(first);
}, 120_000);

afterAll(async () => {
  await stopWorker?.();
  await stopModelWorker?.();
  await second?.app.close();
  await third?.app.close();
});

describe('A2A tasks across a restart', () => {
  it('a task following a delivery, closed with its app mid-work, completes when read from a new app on the same stores', async () => {
    const token = await org.token(['discovery', 'creator']);
    const seg = await first.app.inject({
      method: 'POST',
      url: '/v1/segments',
      headers: bearer(token),
      payload: { name: 'restart', filters: CA, create_audience: true },
    });
    expect(seg.statusCode).toBe(201);
    const audienceId = seg.json().audience_id as string;

    // No worker runs: the delivery stays processing and the task follows it.
    const sent = await rpc(
      first,
      token,
      'SendMessage',
      message({ tool: 'create_delivery', arguments: { id: audienceId, confirm: true, output_format: 'csv' } }, { skill: 'deliveries' }),
    );
    if (!sent.result) throw new Error(JSON.stringify(sent));
    const task = sent.result.task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(task.artifacts[0].parts[0].data).toMatchObject({ audience_id: audienceId, status: 'processing' });
    const deliveryId = task.artifacts[0].parts[0].data.delivery_id as string;

    // A task whose operation was running when its process stopped: what open() leaves behind.
    const orphan = await first.services.agentTasks.open({
      orgId: org.orgId,
      userId: org.ownerId,
      skill: 'discovery',
      tool: 'count_persons',
      message: {},
    });
    await first.app.close();

    const clock = new ManualClock(start);
    second = await testApp({ clock, config: { dataDir } });
    const again = await org.token(['discovery']);
    const still = await rpc(second, again, 'GetTask', { id: task.id });
    expect(still.result.status.state).toBe('TASK_STATE_WORKING');
    // Within the lease of the stopped process, the orphan is still working; after it, failed with the reason.
    expect((await rpc(second, again, 'GetTask', { id: orphan.id })).result.status.state).toBe('TASK_STATE_WORKING');
    clock.advance(LEASE_MS + 1000);
    const failed = (await rpc(second, again, 'GetTask', { id: orphan.id })).result;
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.status.message.parts[0].data).toMatchObject({ code: 'TASK_INTERRUPTED', next_step: expect.any(String) });

    // The new process's worker runs the export; a subscription sees the task through to the end.
    const { queue } = await testStores();
    const def = second.services.deliveries.jobDefinitions()[0] as JobDefinition;
    const workerId = await queue.work<any>(
      def.name,
      { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true } as never,
      async (jobs) => {
        for (const job of jobs) await def.handle(job.data, { id: job.id, retryCount: 0 });
      },
    );
    stopWorker = () => queue.boss.offWork(def.name, { id: workerId });
    const events = await rpc(second, again, 'SubscribeToTask', { id: task.id });
    expect(events[0].result.task.id).toBe(task.id);
    const last = events.at(-1).result;
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const progress = events
      .map((e: any) => e.result.artifactUpdate?.artifact)
      .filter((a: any) => a?.artifactId === `${task.id}-progress`)
      .at(-1);
    expect(progress.parts[0].data).toMatchObject({ delivery_id: deliveryId, status: 'completed', output_record_count: expect.any(Number) });

    let done: any;
    await waitFor(
      async () => (done = (await rpc(second!, again, 'GetTask', { id: task.id })).result).status.state === 'TASK_STATE_COMPLETED',
      30_000,
    );
    expect(done.artifacts.map((a: { artifactId: string }) => a.artifactId)).toEqual([`${task.id}-result`, `${task.id}-progress`]);
    const rest = await second.app.inject({
      method: 'GET',
      url: `/v1/audiences/${audienceId}/deliveries/${deliveryId}`,
      headers: bearer(again),
    });
    expect(rest.json()).toMatchObject({ status: 'completed', output_record_count: done.artifacts[1].parts[0].data.output_record_count });
  }, 120_000);

  it('a task following a similarity segment, closed with its app before the workflow ran, completes in a new app whose worker builds it', async () => {
    const before = second!;
    const token = await org.token(['discovery', 'creator']);
    const seed = await before.app.inject({
      method: 'POST',
      url: '/v1/segments',
      headers: bearer(token),
      payload: { name: 'seed', filters: CA, create_audience: false },
    });
    expect(seed.statusCode).toBe(201);
    const { queue } = await testStores();
    const def = before.services.modelSegments.jobDefinitions()[0] as JobDefinition;
    await queue.ensureQueue(def.name, def.queue);
    const sent = await rpc(
      before,
      token,
      'SendMessage',
      message(
        { tool: 'create_segment', arguments: { name: 'lookalikes', subtype: 'similarity', seed_segment_id: seed.json().segment_id } },
        { skill: 'segments' },
      ),
    );
    if (!sent.result) throw new Error(JSON.stringify(sent));
    const task = sent.result.task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(task.artifacts[0].parts[0].data).toMatchObject({ status: 'pending', workflow_run_id: expect.any(String) });
    const segmentId = task.artifacts[0].parts[0].data.segment_id as string;
    await stopWorker?.();
    stopWorker = null;
    await before.app.close();
    second = null;

    third = await testApp({ clock: new ManualClock(start), config: { dataDir } });
    const built = third.services.modelSegments.jobDefinitions()[0] as JobDefinition;
    const workerId = await queue.work<any>(
      built.name,
      { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true } as never,
      async (jobs) => {
        for (const job of jobs) await built.handle(job.data, { id: job.id, retryCount: 0 });
      },
    );
    stopModelWorker = () => queue.boss.offWork(built.name, { id: workerId });
    const reader = await org.token(['discovery']);
    let done: any;
    await waitFor(
      async () => (done = (await rpc(third!, reader, 'GetTask', { id: task.id })).result).status.state !== 'TASK_STATE_WORKING',
      90_000,
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts[1].parts[0].data).toMatchObject({ segment_id: segmentId, subtype: 'similarity', status: 'active' });
    const rest = await third.app.inject({ method: 'GET', url: `/v1/segments/${segmentId}`, headers: bearer(reader) });
    expect(rest.json()).toMatchObject({ status: 'active', record_count: done.artifacts[1].parts[0].data.record_count });
  }, 150_000);
});
