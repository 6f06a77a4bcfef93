/**
 * The segments area: segments (with the subtype registry), audiences and campaigns, which the domain
 * groups together (an audience is a composition of segments; a campaign groups audiences). It owns the
 * segments, audiences, audience_segments and campaigns tables; other areas read and change them only
 * through `api` below, inside their own transaction where they pass one.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { Operation } from '../../core/operation.ts';
import type { DB } from '../../db/schema.ts';
import type { SegmentMembership } from '../../graph/index.ts';
import { createAudienceChanges } from './audience/changes.ts';
import { createInputResolver } from './audience/inputs.ts';
import { audienceOperations } from './audience/operations.ts';
import { createAudienceService } from './audience/service.ts';
import { audienceStore } from './audience/store.ts';
import { campaignOperations } from './campaign/operations.ts';
import { createCampaignService } from './campaign/service.ts';
import { createSegmentsContext, type SegmentsDeps } from './context.ts';
import { lifecycleJobDefinitions } from './lifecycle/jobs.ts';
import { createSegmentChanges } from './segment/changes.ts';
import { segmentOperations } from './segment/operations.ts';
import { createSegmentService } from './segment/service.ts';
import { segmentStore } from './segment/store.ts';
import { segmentTransitions } from './segment/transitions.ts';
import { compositionQuery } from './shared/membership.ts';
import { loadCatalog, parseFilters, requireRelease, type ShownCount } from './shared/rules.ts';
import { createFilterSubtype } from './subtypes/filter.ts';

export function createSegmentsModule(deps: SegmentsDeps) {
  const ctx = createSegmentsContext(deps);
  ctx.registry.register(createFilterSubtype(ctx).subtype);
  const segments = createSegmentService(ctx);
  const segmentChanges = createSegmentChanges(ctx);
  const audiences = createAudienceService(ctx);
  const audienceChanges = createAudienceChanges(ctx, segments);
  const campaigns = createCampaignService({ db: deps.db, clock: deps.clock });
  const inputs = createInputResolver(ctx);

  /** What other areas may do with this area's rows (their own subtypes, deliveries, matching). */
  const api = {
    floor: ctx.floor,
    registerSubtype: ctx.registry.register,
    requireRelease: () => requireRelease(deps.graph),
    /** The live field catalog (502 FILTER_CATALOG_UNAVAILABLE when it cannot be read). */
    catalog: () => loadCatalog(ctx.deps.graph),
    /** Filter input -> validated groups (400 INVALID_FILTER with issues). */
    parseFilters,
    checkCampaign: ctx.checkCampaign,
    findSegment: (db: Kysely<DB>, orgId: string, id: string, opts?: { forUpdate?: boolean }) => segmentStore.find(db, orgId, id, opts),
    findVisibleSegment: ctx.findVisibleSegment,
    findVisibleAudience: ctx.findVisibleAudience,
    audienceRefs: (db: Kysely<DB>, orgId: string, audienceIds: readonly string[]) => audienceStore.refs(db, orgId, audienceIds),
    findSegments: (db: Kysely<DB>, orgId: string, ids: readonly string[]) => segmentStore.findMany(db, orgId, ids),
    segmentUsage: (orgId: string, id: string) => segmentStore.usage(deps.db, orgId, id),
    presentSegment: ctx.present,
    /** Records the audience's most recent delivery quote (spec 2: id and total cost in cents). */
    async recordQuote(db: Kysely<DB>, orgId: string, audienceId: string, quote: { id: string; costCents: number }) {
      await audienceStore.update(db, orgId, audienceId, { last_quote_id: quote.id, last_quote_cost_cents: quote.costCents });
    },
    membershipOf: ctx.membershipOf,
    /** A graph-derived member set's size as shown (a model-built segment): the privacy layer's answer to the question of those members. */
    shownMembersCount: (membership: SegmentMembership, trueCount: number): ShownCount =>
      ctx.privacy.shownCount({
        question: ctx.privacy.question(compositionQuery({ include: [membership], exclude: [], setLogic: 'union' })),
        trueCount,
      }),
    resolveSegmentInput: inputs.resolveSegmentInput,
    ...segmentTransitions,
    /** The included segment of an audience with a registered subtype `subtype`, for audience-level routes of that subtype. */
    async includedSegmentOf(viewer: Viewer, audienceId: string, subtype: string) {
      await ctx.findVisibleAudience(viewer, audienceId);
      const refs = (await audienceStore.refs(deps.db, viewer.orgId, [audienceId])).get(audienceId) ?? [];
      const rows = await segmentStore.findMany(
        deps.db,
        viewer.orgId,
        refs.filter((r) => r.role === 'include').map((r) => r.segment_id),
      );
      return rows.find((s) => s.subtype === subtype) ?? null;
    },
  };

  const operations: Operation[] = [
    ...segmentOperations({ segments, changes: segmentChanges }),
    ...audienceOperations({ audiences, changes: audienceChanges }),
    ...campaignOperations({ campaigns }),
  ];

  return {
    segments,
    segmentChanges,
    audiences,
    audienceChanges,
    campaigns,
    api,
    operations,
    /** Tests only: graph faults to inject (set a port, then delete it). */
    faults: ctx.faults,
    jobDefinitions: () => lifecycleJobDefinitions(ctx),
  };
}

export type SegmentsModule = ReturnType<typeof createSegmentsModule>;
export type SegmentsApi = SegmentsModule['api'];

export { scheduleExpirySweep, EXPIRY_SWEEP_JOB } from './lifecycle/jobs.ts';
export { sweepExpired } from './lifecycle/sweep.ts';
export { RECOUNT_JOB } from './shared/counting.ts';
export { SegmentErrors, AudienceErrors } from './shared/errors.ts';
export { warehouseGraphPorts } from './shared/graph-ports.ts';
export { materializedMembership } from './shared/membership.ts';
export { DEFAULT_EPHEMERAL_TTL_HOURS, ephemeralExpiry, persistentExpiry, visibleTo, type ShownCount } from './shared/rules.ts';
export type { GraphPorts, ReleaseRef } from './shared/ports.ts';
export type { SegmentInput } from './audience/inputs.ts';
export { referencedReleases, type SegmentRow } from './segment/store.ts';
export type { NewSegment } from './segment/rows.ts';
export { matchRate } from './segment/present.ts';
export {
  CreatedSegmentSchema,
  RefreshedSegmentSchema,
  SegmentSchema,
  type CreateSegmentInput,
  type CreatedSegmentDoc,
  type RefreshSegmentInput,
  type RefreshedSegmentDoc,
  type SegmentDoc,
} from './segment/schemas.ts';
export type { SegmentSubtype, Subtype, SubtypeFields } from './subtypes/registry.ts';
export { affectedNextStep } from './subtypes/filter.ts';
