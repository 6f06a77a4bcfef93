/** Audiences: create (single and bulk), read, list, edit, count (spec 4.4, 3 "Audience status"). */
import type { Viewer } from '../../../core/caller.ts';
import { DomainError, isDomainError, type ErrorCode } from '../../../core/errors.ts';
import { pageQuery, toPage } from '../../../core/page.ts';
import { newId } from '../../../lib/ids.ts';
import { campaignStore } from '../campaign/store.ts';
import type { SegmentsContext } from '../context.ts';
import { segmentStore } from '../segment/store.ts';
import type { CountOutcome } from '../shared/counting.ts';
import { AudienceErrors, SegmentErrors } from '../shared/errors.ts';
import { floorCount, requireRelease, visibleTo } from '../shared/rules.ts';
import { countComposition, includesCustomerList, loadComposition } from './composition.ts';
import { audienceRow } from './rows.ts';
import type { AudienceDoc, BulkCreateInput, CreateAudienceInput, ListAudiencesInput } from './schemas.ts';
import { audienceStore, type AudiencePatch, type SegmentRef } from './store.ts';

type AudienceItem = Omit<CreateAudienceInput, 'campaign_id'> & { record_count?: number };

/** Codes a bulk item can fail with on its own (the rest of the batch is still created). */
const ITEM_ERRORS: ReadonlySet<ErrorCode> = new Set(['SEGMENT_NOT_FOUND', 'SEGMENT_ARCHIVED', 'MISSING_SEGMENTS', 'INVALID_REQUEST']);

/** segment_refs wins over segment_ids / excluded_segment_ids (spec 4.4). */
export function refsOf(item: Pick<AudienceItem, 'segment_refs' | 'segment_ids' | 'excluded_segment_ids'>): SegmentRef[] {
  const refs = item.segment_refs ?? [
    ...(item.segment_ids ?? []).map((segment_id) => ({ segment_id, role: 'include' as const })),
    ...(item.excluded_segment_ids ?? []).map((segment_id) => ({ segment_id, role: 'exclude' as const })),
  ];
  const seen = new Map<string, string>();
  const out: SegmentRef[] = [];
  for (const r of refs) {
    const prior = seen.get(r.segment_id);
    if (prior === r.role) continue; // the same segment twice in one role is one member
    if (prior)
      throw new DomainError('INVALID_REQUEST', `Segment ${r.segment_id} is both included and excluded.`, {
        nextStep: 'Give each segment one role.',
      });
    seen.set(r.segment_id, r.role);
    out.push(r);
  }
  return out;
}

export function createAudienceService(ctx: SegmentsContext) {
  const { db, recount, deps } = ctx;
  const { graph, clock } = deps;

  /** Checks that every ref can enter a new composition; returns the problem as an error, or null. */
  async function checkRefs(viewer: Viewer, refs: SegmentRef[]): Promise<DomainError | null> {
    if (!refs.some((r) => r.role === 'include')) return AudienceErrors.missingSegments();
    const rows = new Map(
      (
        await segmentStore.findMany(
          db,
          viewer.orgId,
          refs.map((r) => r.segment_id),
        )
      ).map((s) => [s.id, s]),
    );
    const missing = refs
      .filter((r) => {
        const s = rows.get(r.segment_id);
        return !s || !visibleTo(s, viewer);
      })
      .map((r) => r.segment_id);
    if (missing.length) {
      return new DomainError('SEGMENT_NOT_FOUND', `Segment(s) not found: ${missing.join(', ')}.`, {
        details: { segment_ids: missing },
        nextStep: 'Only existing segments can be composed; check the ids.',
      });
    }
    const archived = refs.filter((r) => rows.get(r.segment_id)!.status === 'archived').map((r) => r.segment_id);
    if (archived.length) {
      return new DomainError('SEGMENT_ARCHIVED', `Archived segments cannot enter new compositions: ${archived.join(', ')}.`, {
        details: { segment_ids: archived },
        nextStep: 'Reactivate them with PATCH /v1/segments/{id} {"status":"active"}.',
      });
    }
    return null;
  }

  /** Validates, counts (outside any transaction) and returns what to insert. */
  async function prepare(viewer: Viewer, item: AudienceItem) {
    const refs = refsOf(item);
    const problem = await checkRefs(viewer, refs);
    if (problem) throw problem;
    const setLogic = item.set_logic ?? 'union';
    const loaded = await loadComposition(ctx, viewer.orgId, refs, setLogic);
    const count: CountOutcome =
      item.record_count !== undefined
        ? { ...floorCount(item.record_count, ctx.floor), deferred: false }
        : await countComposition(ctx, loaded, ctx.timeoutMs);
    return { item, refs, setLogic, count, customerList: includesCustomerList(ctx, loaded) };
  }

  async function insertPrepared(viewer: Viewer, list: Awaited<ReturnType<typeof prepare>>[], campaignId: string | null): Promise<string[]> {
    const release = requireRelease(graph);
    const now = clock.now();
    const ids = list.map(() => newId('aud'));
    await recount.ready();
    await db.transaction().execute(async (trx) => {
      for (const [i, p] of list.entries()) {
        const row = audienceRow({
          id: ids[i]!,
          orgId: viewer.orgId,
          name: p.item.name,
          visibility: p.item.visibility ?? 'org',
          createdBy: viewer.userId,
          setLogic: p.setLogic,
          count: p.count,
          release,
          campaignId,
          now,
        });
        if (p.customerList) row.matched_record_count = p.count.matched_record_count ?? null;
        await audienceStore.insert(trx, row, p.refs);
        if (p.count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: ids[i]!, version: 1 });
      }
    });
    return ids;
  }

  const presentOne = async (orgId: string, id: string): Promise<AudienceDoc> =>
    (await ctx.presentAudiences(orgId, [(await audienceStore.find(db, orgId, id))!]))[0]!;

  return {
    async create(viewer: Viewer, input: CreateAudienceInput): Promise<AudienceDoc> {
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const [id] = await insertPrepared(viewer, [await prepare(viewer, input)], input.campaign_id ?? null);
      return presentOne(viewer.orgId, id!);
    },

    /** Up to 25 items; items naming a missing segment are reported in `errors` and not created. */
    async bulkCreate(viewer: Viewer, input: BulkCreateInput) {
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const settled = await Promise.all(
        input.audiences.map(async (item, index) => {
          try {
            return { ok: true as const, index, prepared: await prepare(viewer, item) };
          } catch (error) {
            if (!isDomainError(error) || !ITEM_ERRORS.has(error.code)) throw error;
            return { ok: false as const, index, error };
          }
        }),
      );
      const good = settled.flatMap((s) => (s.ok ? [s.prepared] : []));
      const ids = good.length ? await insertPrepared(viewer, good, input.campaign_id ?? null) : [];
      const byId = new Map((await audienceStore.findMany(db, viewer.orgId, ids)).map((r) => [r.id, r]));
      return {
        audiences: await ctx.presentAudiences(
          viewer.orgId,
          ids.map((id) => byId.get(id)!),
        ),
        errors: settled.flatMap((s) =>
          s.ok
            ? []
            : [
                {
                  index: s.index,
                  name: input.audiences[s.index]!.name,
                  error: s.error.code,
                  message: s.error.message,
                  ...(Array.isArray(s.error.details?.segment_ids) ? { segment_ids: s.error.details!.segment_ids as string[] } : {}),
                },
              ],
        ),
      };
    },

    async get(viewer: Viewer, id: string): Promise<AudienceDoc> {
      return (await ctx.presentAudiences(viewer.orgId, [await ctx.findVisibleAudience(viewer, id)]))[0]!;
    },

    async list(viewer: Viewer, q: ListAudiencesInput) {
      if (q.campaign_id && q.unlinked) {
        throw new DomainError('CONFLICTING_FILTERS', 'campaign_id and unlinked=true cannot be combined.', {
          nextStep: 'Send one of them.',
        });
      }
      if (q.campaign_id && !(await campaignStore.exists(db, viewer.orgId, q.campaign_id))) {
        throw new DomainError('INVALID_CAMPAIGN_ID', `Campaign ${q.campaign_id} does not exist in this organization.`, {
          nextStep: 'List campaigns with GET /v1/campaigns, or omit campaign_id.',
        });
      }
      // A cursor belongs to one list: all audiences, unlinked ones, or one campaign's (ordered by link time).
      const scope = q.campaign_id ? `audiences:campaign:${q.campaign_id}` : q.unlinked ? 'audiences:unlinked' : 'audiences';
      const page = pageQuery(scope, q);
      const rows = await audienceStore.list(db, viewer, {
        includeArchived: q.include_archived ?? false,
        campaignId: q.campaign_id ?? null,
        unlinked: q.unlinked ?? false,
        after: page.after,
        limit: page.fetch,
      });
      const { items, next_cursor } = toPage(
        scope,
        rows,
        page.limit,
        (r) => ({ at: q.campaign_id ? r.linked_at! : r.created_at, id: r.id }),
        (r) => r,
      );
      return { audiences: await ctx.presentAudiences(viewer.orgId, items), count: items.length, next_cursor };
    },

    async patch(viewer: Viewer, id: string, input: { name?: string; status?: 'archived' | 'active' }): Promise<AudienceDoc> {
      const current = await ctx.findVisibleAudience(viewer, id);
      const now = clock.now();
      const patch: AudiencePatch = { updated_at: now };
      if (input.name !== undefined) patch.name = input.name;
      if (input.status && input.status !== current.status) {
        if (input.status === 'archived') Object.assign(patch, { status: 'archived', archived_from_status: current.status });
        else if (current.status !== 'archived')
          throw SegmentErrors.transition(
            current.status,
            'active',
            'Refresh the audience (POST /v1/audiences/{id}/refresh) to renew an expired one.',
          );
        else if (current.expires_at <= now)
          throw SegmentErrors.transition('archived', 'active', 'The audience passed its 90-day expiry while archived; refresh or fork it.');
        else Object.assign(patch, { status: current.archived_from_status ?? 'active', archived_from_status: null });
      }
      await audienceStore.update(db, viewer.orgId, id, patch);
      return presentOne(viewer.orgId, id);
    },

    /** Counts the current snapshot now; a count that overruns the deadline lands later through the job. */
    async count(viewer: Viewer, id: string): Promise<AudienceDoc> {
      const row = await ctx.findVisibleAudience(viewer, id);
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      const loaded = await loadComposition(ctx, viewer.orgId, refs, row.set_logic as 'union' | 'intersection');
      const count = await countComposition(ctx, loaded, ctx.timeoutMs * 10);
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await audienceStore.landCount(trx, viewer.orgId, id, row.snapshot_version, {
          record_count: count.record_count,
          record_count_reason: count.record_count_reason,
          matched_record_count: includesCustomerList(ctx, loaded) ? (count.matched_record_count ?? null) : null,
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id, version: row.snapshot_version });
      });
      // Asked to count now: a statement stopped by the timeout is 503 QUERY_TIMEOUT (the audience shows count_failed).
      if (count.interrupted) throw SegmentErrors.queryTimeout(count.interrupted);
      return presentOne(viewer.orgId, id);
    },
  };
}

export type AudienceService = ReturnType<typeof createAudienceService>;
