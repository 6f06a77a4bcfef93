/**
 * The filter subtype (spec 4.3): members defined by filter groups over the graph, counted at once
 * (a count that overruns the deadline lands later through the recount job), optionally capped by
 * record_limit, optionally ephemeral.
 */
import type { Viewer } from '../../../core/caller.ts';
import { DomainError } from '../../../core/errors.ts';
import { checkRecordLimitGeography, type FilterGroup } from '../../../graph/index.ts';
import { newId } from '../../../lib/ids.ts';
import type { SegmentsContext } from '../context.ts';
import type { CreateSegmentInput, CreatedSegmentDoc, RefreshSegmentInput, RefreshedSegmentDoc } from '../segment/schemas.ts';
import { segmentStore, type SegmentRow } from '../segment/store.ts';
import { segmentTransitions } from '../segment/transitions.ts';
import { filterMembership } from '../shared/membership.ts';
import {
  DEFAULT_EPHEMERAL_TTL_HOURS,
  ephemeralExpiry,
  loadCatalog,
  parseFilters,
  persistentExpiry,
  requireRelease,
  sameRelease,
} from '../shared/rules.ts';
import type { SegmentSubtype } from './registry.ts';

export const affectedNextStep = (affected: readonly string[]) =>
  affected.length
    ? 'Audiences using this segment were not refreshed: refresh each (POST /v1/audiences/{id}/refresh with this segment_id) to deliver the new version.'
    : 'The new version is ready; compose it into an audience with POST /v1/audiences.';

export function createFilterSubtype(ctx: SegmentsContext) {
  const { db, recount, deps } = ctx;
  const { graph, events, clock } = deps;

  /** record_limit rule of spec 4.3: every OR branch narrowed to at most 100 ZIP3 regions. */
  async function checkCap(groups: FilterGroup[], recordLimit: number | null | undefined): Promise<void> {
    if (recordLimit === null || recordLimit === undefined) return;
    const check = await checkRecordLimitGeography(groups, graph.zip3);
    if (!check.ok) {
      throw new DomainError('CAP_GEOGRAPHY_REQUIRED', check.branches.map((b) => b.message).join(' '), {
        details: { branches: check.branches },
        nextStep: 'Add a State, City or ZIP filter (= or IN) to every OR branch, covering at most 100 ZIP3 regions each.',
      });
    }
  }

  async function create(viewer: Viewer, input: CreateSegmentInput): Promise<CreatedSegmentDoc> {
    if (input.ttl_hours !== undefined && !input.ephemeral) {
      throw new DomainError('INVALID_REQUEST', 'ttl_hours applies to ephemeral segments only.', {
        nextStep: 'Send ephemeral: true with ttl_hours, or drop ttl_hours.',
      });
    }
    if (input.webhook_url) events.validateWebhookUrl(input.webhook_url);
    const groups = parseFilters(input, await loadCatalog(graph));
    await checkCap(groups, input.record_limit);
    await ctx.checkCampaign(viewer.orgId, input.campaign_id);
    const release = requireRelease(graph);
    const now = clock.now();
    const id = newId('seg');
    const ephemeral = input.ephemeral === true;
    const draft = {
      id,
      subtype: 'filter',
      filter_groups: groups,
      record_limit: input.record_limit ?? null,
      current_version: 1,
      members_path: null,
    } as SegmentRow;
    const count = await ctx.countSegment(draft);
    // Ephemeral segments are scratch: no wrapper audience unless asked for.
    const createAudience = input.create_audience ?? !ephemeral;
    const visibility = input.visibility ?? 'org';
    await recount.ready();
    const audienceId = await db.transaction().execute(async (trx) => {
      await segmentTransitions.insert(trx, {
        id,
        orgId: viewer.orgId,
        name: input.name,
        subtype: 'filter',
        status: 'active',
        visibility,
        createdBy: viewer.userId,
        count,
        release,
        now,
        ephemeral,
        filterGroups: groups,
        recordLimit: input.record_limit ?? null,
        expiresAt: ephemeral ? ephemeralExpiry(now, input.ttl_hours ?? DEFAULT_EPHEMERAL_TTL_HOURS) : persistentExpiry(now),
        originCampaignId: input.campaign_id ?? null,
        webhookUrl: input.webhook_url ?? null,
      });
      if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id, version: 1 });
      const wrapper = createAudience
        ? await segmentTransitions.insertWrapperAudience(trx, {
            orgId: viewer.orgId,
            segmentId: id,
            name: input.name,
            visibility,
            createdBy: viewer.userId,
            status: 'active',
            count,
            release,
            campaignId: input.campaign_id ?? null,
            now,
          })
        : null;
      if (wrapper && count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: wrapper, version: 1 });
      await emitReady(trx, viewer.orgId, {
        id,
        name: input.name,
        audienceId: wrapper,
        recordCount: count.record_count,
        webhookUrl: input.webhook_url ?? null,
      });
      return wrapper;
    });
    const row = (await segmentStore.find(db, viewer.orgId, id))!;
    return { ...ctx.present(row), ...(audienceId ? { audience_id: audienceId } : {}) };
  }

  async function emitReady(
    trx: typeof db,
    orgId: string,
    s: { id: string; name: string; audienceId: string | null; recordCount: number | null; webhookUrl: string | null },
  ) {
    await events.emit(trx, {
      orgId,
      type: 'segment.ready',
      subject: { kind: 'segment', id: s.id, name: s.name },
      data: { status: 'completed', subtype: 'filter', audience_id: s.audienceId, record_count: s.recordCount },
      webhookUrl: s.webhookUrl,
    });
  }

  /**
   * Spec 3: version bumped, record_count cleared, TTL reset; a no-op when nothing changed. The new
   * version's count lands in the background (recount job), so a read shortly after shows it.
   */
  async function refresh(viewer: Viewer, current: SegmentRow, input: RefreshSegmentInput): Promise<RefreshedSegmentDoc> {
    for (const field of ['hitl', 'shard_count', 'compression'] as const) {
      if (input[field] !== undefined)
        throw new DomainError('INVALID_REQUEST', `${field} applies to matched segments only.`, { nextStep: `Remove ${field}.` });
    }
    const release = requireRelease(graph);
    const affected = (await segmentStore.usage(db, viewer.orgId, current.id)).map((u) => u.id);
    if (current.status === 'active' && sameRelease(release, current) && !input.force) {
      return {
        ...ctx.present(current),
        refreshed: false,
        affected_audiences: affected,
        next_step: 'Nothing changed since the last version (same filters, same data release); send force: true to bump the version anyway.',
      };
    }
    const now = clock.now();
    const version = current.current_version + 1;
    await recount.ready();
    await db.transaction().execute(async (trx) => {
      await segmentStore.update(trx, viewer.orgId, current.id, {
        status: 'active',
        current_version: version,
        version_created_at: now,
        record_count: null,
        record_count_reason: 'counting',
        release_major: release.major,
        release_minor: release.minor,
        updated_at: now,
        expires_at: current.ephemeral ? ephemeralExpiry(now, DEFAULT_EPHEMERAL_TTL_HOURS) : persistentExpiry(now),
      });
      await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id: current.id, version });
      await emitReady(trx, viewer.orgId, {
        id: current.id,
        name: current.name,
        audienceId: null,
        recordCount: null,
        webhookUrl: current.webhook_url,
      });
    });
    return {
      ...ctx.present((await segmentStore.find(db, viewer.orgId, current.id))!),
      refreshed: true,
      affected_audiences: affected,
      next_step: `record_count was cleared and the new version is being counted (read the segment again shortly). ${affectedNextStep(affected)}`,
    };
  }

  /** PATCH of filters / record_limit: a new version, validated and capped like a create, counted now. */
  async function editMembership(
    _viewer: Viewer,
    current: SegmentRow,
    input: { filters?: unknown; filter_groups?: unknown; record_limit?: number | null },
  ) {
    const groups =
      input.filters !== undefined || input.filter_groups !== undefined
        ? parseFilters(input, await loadCatalog(graph))
        : (current.filter_groups as FilterGroup[]);
    const recordLimit = input.record_limit !== undefined ? input.record_limit : current.record_limit;
    await checkCap(groups, recordLimit);
    const release = requireRelease(graph);
    const version = current.current_version + 1;
    const count = await ctx.countSegment({ ...current, filter_groups: groups, record_limit: recordLimit, current_version: version });
    const now = clock.now();
    return {
      version,
      count,
      patch: {
        filter_groups: JSON.stringify(groups),
        record_limit: recordLimit,
        current_version: version,
        version_created_at: now,
        record_count: count.record_count,
        record_count_reason: count.record_count_reason,
        release_major: release.major,
        release_minor: release.minor,
      },
    };
  }

  const subtype: SegmentSubtype = {
    name: 'filter',
    createFields: ['filters', 'filter_groups', 'record_limit', 'ephemeral', 'ttl_hours'],
    createsAudienceByDefault: true,
    customerList: false,
    onDuplicate: 'recount',
    create,
    refresh,
    membership: filterMembership,
    presentFields: () => ({}),
    editMembership,
  };
  return { subtype, checkCap };
}

export type FilterSubtype = ReturnType<typeof createFilterSubtype>;
