/**
 * Model-segment test kit: the segments test app over the shared 3,000-person graph, the workflow
 * worker on the shared test queue (pg-boss), and helpers to wait for runs and read events.
 */
import type { MeasuredSet } from '../../src/modules/privacy/index.ts';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import type { MembershipQuery } from '../../src/graph/membership/types.ts';
import { questionOf } from '../../src/modules/privacy/index.ts';
import { testPrivacy } from '../helpers/privacy.ts';
import { testStores } from '../helpers/stores.ts';
import { cond, setup as segSetup, type SegTest } from '../segments/setup.ts';
import { waitFor } from '../webhooks/helpers.ts';

export interface ModelTest extends SegTest {
  /** A filter segment (active) to learn from. */
  filterSegment(filters: unknown[], name?: string): Promise<string>;
  workflow(id: string): Promise<any>;
  waitRun(id: string, statuses: string[], ms?: number): Promise<any>;
  waitSegment(id: string, statuses: string[], ms?: number): Promise<any>;
  events(segmentId: string): Promise<{ type: string; data: any }[]>;
  stopWorker(): Promise<void>;
  /** What the privacy layer shows for the size of a run's segment (the question of its member set), true size `n`. */
  shownSize(runId: string, n: number): Promise<number | null>;
  /** What the privacy layer shows for a run's seed / positive-class size (the question of the labelled set), true size `n`. */
  shownLabelled(runId: string, n: number): Promise<number | null>;
  /** The person keys of a run's member set, best-scored first. */
  runMembers(runId: string): Promise<bigint[]>;
}

export { cond };

export async function setup(): Promise<ModelTest> {
  const s = await segSetup();
  const { queue, database } = await testStores();
  const def = s.t.services.modelSegments.jobDefinitions()[0] as JobDefinition;
  await queue.ensureQueue(def.name, def.queue);
  const workerId = await queue.work<any>(
    def.name,
    { batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, includeMetadata: true } as never,
    async (jobs) => {
      for (const job of jobs) await def.handle(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
    },
  );
  const m: ModelTest = {
    ...s,
    async filterSegment(filters, name = 'seed') {
      return (await s.segment({ name, filters, create_audience: false })).segment_id;
    },
    async workflow(id) {
      const res = await s.call('GET', `/v1/workflows/${id}`);
      if (res.status !== 200) throw new Error(`workflow ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async waitRun(id, statuses, ms = 60_000) {
      let last: any;
      await waitFor(async () => {
        last = await m.workflow(id);
        return statuses.includes(last.status);
      }, ms).catch(() => {
        throw new Error(`timed out waiting for run ${statuses}; last ${JSON.stringify(last)?.slice(0, 2000)}`);
      });
      return last;
    },
    async waitSegment(id, statuses, ms = 60_000) {
      let last: any;
      await waitFor(async () => {
        last = (await s.call('GET', `/v1/segments/${id}`)).body;
        return statuses.includes(last.status);
      }, ms).catch(() => {
        throw new Error(`timed out waiting for segment ${statuses}; last ${JSON.stringify(last)}`);
      });
      return last;
    },
    async events(segmentId) {
      const rows = await database.db
        .selectFrom('events')
        .select(['type', 'body'])
        .where('subject_id', '=', segmentId)
        .orderBy('created_at')
        .execute();
      return rows.map((r) => ({ type: r.type, data: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body).data }));
    },
    async shownSize(runId, n) {
      const run = await database.db
        .selectFrom('workflow_runs')
        .select(['members_path', 'segment_id', 'kind'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow();
      const include = [
        { kind: 'members' as const, segmentId: run.segment_id, subtype: run.kind as 'similarity', parquetPath: run.members_path },
      ];
      return testPrivacy.protectCount({
        question: questionOf({ kind: 'composition', composition: { include, exclude: [], setLogic: 'union' } }),
        trueCount: n,
      }).count;
    },
    async shownLabelled(runId, n) {
      const run = await database.db.selectFrom('workflow_runs').select('input').where('id', '=', runId).executeTakeFirstOrThrow();
      const input = (typeof run.input === 'string' ? JSON.parse(run.input) : run.input) as {
        labelled_query: MembershipQuery;
        labelled_set?: MeasuredSet;
      };
      // Shown by the labelled set's members when the seed step measured them (decision 052).
      if (input.labelled_set) return testPrivacy.protectSet({ set: { ...input.labelled_set, n } }).count;
      return testPrivacy.protectCount({ question: questionOf(input.labelled_query), trueCount: n }).count;
    },
    async runMembers(runId) {
      const run = await database.db.selectFrom('workflow_runs').select('members_path').where('id', '=', runId).executeTakeFirstOrThrow();
      const rows = (await s.g.conn.runAndReadAll(`SELECT person_key FROM read_parquet('${run.members_path}') ORDER BY rank`)).getRowsJS();
      return rows.map((r) => BigInt(r[0] as bigint));
    },
    async stopWorker() {
      await queue.boss.offWork(def.name, { id: workerId });
    },
  };
  return m;
}
