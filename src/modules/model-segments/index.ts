/**
 * Similarity (lookalike) and propensity segments (spec 2, 3, 4.3, 4.11; issue #19): the two
 * model-built subtypes, registered into the segments area, their workflows (durable pg-boss jobs
 * with persisted runs and review gates) and the workflow operations. The modelling itself is
 * src/modelling (decision 024); this area decides what to learn from, when, and who sees what.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ModelWarehouse } from '../../modelling/index.ts';
import { ObjectStore } from '../../objects/store.ts';
import type { SegmentsApi } from '../segments/index.ts';
import type { EventService } from '../webhooks/index.ts';
import { createWorkflowRunner } from './job.ts';
import { createLauncher } from './launch.ts';
import { workflowOperations } from './operations.ts';
import { identityProtect, type ProtectNumbers } from './protect.ts';
import { createSeeds } from './seeds.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import type { MeasuredSet } from '../privacy/index.ts';
import { createModelSubtype } from './subtypes.ts';
import { createWorkflowService } from './workflows.ts';

export function createModelSegmentsModule(deps: {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  dataDir: string;
  events: Pick<EventService, 'emit' | 'validateWebhookUrl'>;
  segments: SegmentsApi;
  warehouse: ModelWarehouse;
  /** The privacy layer's treatment of graph-derived numbers shown to customers (src/wiring.ts: `privacyProtect`). */
  protectNumbers?: ProtectNumbers;
  /** The privacy layer's measure of a set (decision 052): a seed is refused exactly as discovery refuses the same set. */
  measureSet?: (query: MembershipQuery) => Promise<{ set: MeasuredSet; answered: MembershipQuery }>;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}) {
  const { db, queue, clock, segments } = deps;
  const floor = segments.floor;
  const protect = deps.protectNumbers ?? identityProtect;
  /** Test hooks (a launch that fails, a crash after training); empty in production. */
  const hooks: { beforeLaunch?: () => void | Promise<void>; afterTrain?: (runId: string) => void | Promise<void> } = {};
  const seeds = createSeeds({
    db,
    segments,
    warehouse: deps.warehouse,
    floor,
    protect,
    ...(deps.measureSet ? { measure: deps.measureSet } : {}),
  });
  const launcher = createLauncher({ db, queue, clock, segments, events: deps.events, seeds, beforeLaunch: () => hooks.beforeLaunch?.() });
  const runner = createWorkflowRunner({
    db,
    clock,
    segments,
    events: deps.events,
    seeds,
    warehouse: deps.warehouse,
    objects: new ObjectStore(deps.dataDir),
    floor,
    protect,
    log: deps.log,
    afterTrain: (runId) => hooks.afterTrain?.(runId),
  });
  const workflows = createWorkflowService({ db, queue, clock, segments, seeds, protect, floor, fail: runner.fail });
  segments.registerSubtype(createModelSubtype('similarity', launcher));
  segments.registerSubtype(createModelSubtype('propensity', launcher));
  return {
    workflows,
    hooks,
    operations: workflowOperations({ workflows }),
    jobDefinitions: () => [runner.definition],
  };
}

export type ModelSegmentsModule = ReturnType<typeof createModelSegmentsModule>;
export { identityProtect, privacyProtect, type ProtectNumbers, type ProtectContext } from './protect.ts';
export { WORKFLOW_JOB } from './launch.ts';
