/**
 * The segments area's shared toolkit: its dependencies, the subtype registry, the recount scheduler,
 * and the lookups and presenters every service of the area uses. Internal to the area.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SegmentMembership } from '../../graph/index.ts';
import { presentAudiences } from './audience/present.ts';
import { audienceStore, type AudienceRow } from './audience/store.ts';
import { campaignStore } from './campaign/store.ts';
import { presentSegment, type SegmentUsage } from './segment/present.ts';
import type { SegmentDoc } from './segment/schemas.ts';
import { segmentStore, type SegmentRow } from './segment/store.ts';
import { countWithin, createRecountScheduler, type CountOutcome } from './shared/counting.ts';
import { AudienceErrors, SegmentErrors } from './shared/errors.ts';
import type { EventPorts, GraphPorts } from './shared/ports.ts';
import { visibleTo } from './shared/rules.ts';
import type { Privacy } from '../privacy/index.ts';
import { createSubtypeRegistry } from './subtypes/registry.ts';

export interface SegmentsDeps {
  db: Kysely<DB>;
  queue: JobQueue;
  clock: Clock;
  graph: GraphPorts;
  events: EventPorts;
  /** The privacy layer every graph-derived count goes through (noise, floor). */
  privacy: Privacy;
  /** How long a request waits for a count before leaving it to the recount job. */
  countTimeoutMs?: number;
}

export function createSegmentsContext(input: SegmentsDeps) {
  const { db } = input;
  /** Fault injection for tests (a catalog that cannot be read, a count that never ends); empty otherwise. */
  const faults: Partial<GraphPorts> = {};
  const graph: GraphPorts = {
    catalog: () => (faults.catalog ?? input.graph.catalog)(),
    currentRelease: () => (faults.currentRelease ?? input.graph.currentRelease)(),
    count: (q) => (faults.count ?? input.graph.count)(q),
    zip3: (field, values, opts) => (faults.zip3 ?? input.graph.zip3)(field, values, opts),
  };
  const deps = { ...input, graph };
  const registry = createSubtypeRegistry();
  const recount = createRecountScheduler(deps.queue);
  const timeoutMs = deps.countTimeoutMs ?? 3000;
  const { privacy } = deps;
  const floor = privacy.floor;

  const membershipOf = (row: SegmentRow): SegmentMembership => registry.get(row.subtype, 'Reading').membership(row);

  async function findVisibleSegment(viewer: Viewer, id: string, opts: { db?: Kysely<DB>; forUpdate?: boolean } = {}): Promise<SegmentRow> {
    const row = await segmentStore.find(opts.db ?? db, viewer.orgId, id, { forUpdate: opts.forUpdate });
    if (!row || !visibleTo(row, viewer)) throw SegmentErrors.notFound();
    return row;
  }

  async function findVisibleAudience(
    viewer: Viewer,
    id: string,
    opts: { db?: Kysely<DB>; forUpdate?: boolean } = {},
  ): Promise<AudienceRow> {
    const row = await audienceStore.find(opts.db ?? db, viewer.orgId, id, { forUpdate: opts.forUpdate });
    if (!row || !visibleTo(row, viewer)) throw AudienceErrors.notFound();
    return row;
  }

  async function checkCampaign(orgId: string, campaignId: string | null | undefined): Promise<void> {
    if (campaignId && !(await campaignStore.exists(db, orgId, campaignId))) throw SegmentErrors.invalidCampaign(campaignId);
  }

  const countSegment = (row: SegmentRow, timeout = timeoutMs): Promise<CountOutcome> =>
    countWithin(
      deps.graph,
      { kind: 'composition', composition: { include: [membershipOf(row)], exclude: [], setLogic: 'union' } },
      timeout,
      privacy,
    );

  const present = (row: SegmentRow, usage?: SegmentUsage): SegmentDoc =>
    presentSegment(row, registry.has(row.subtype) ? registry.get(row.subtype).presentFields(row) : {}, usage);

  return {
    deps,
    db,
    registry,
    recount,
    timeoutMs,
    floor,
    privacy,
    faults,
    membershipOf,
    findVisibleSegment,
    findVisibleAudience,
    checkCampaign,
    countSegment,
    present,
    presentAudiences: (orgId: string, rows: readonly AudienceRow[]) =>
      presentAudiences(db, orgId, rows, (subtype) => registry.has(subtype) && registry.get(subtype).customerList),
  };
}

export type SegmentsContext = ReturnType<typeof createSegmentsContext>;
