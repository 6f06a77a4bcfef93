/** Audiences: create (single and bulk), read, list, edit, count (spec 4.4, 3 "Audience status"). */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../lib/ids.ts';
import { campaignStore } from '../campaigns/store.ts';
import { SegmentErrors, floorCount, requireRelease, visibleTo } from '../segments/common.ts';
import type { CountOutcome } from '../segments/counting.ts';
import { decodeCursor, encodeCursor } from '../segments/cursor.ts';
import type { SegmentContext } from '../segments/service.ts';
import { segmentStore, type Viewer } from '../segments/store.ts';
import { countComposition, includesMatched, loadComposition } from './composition.ts';
import { presentAudience, presentAudiences } from './present.ts';
import { audienceRow } from './rows.ts';
import { audienceStore, type AudienceRow, type SegmentRef } from './store.ts';

export interface AudienceItemInput {
  name: string;
  segment_refs?: SegmentRef[];
  segment_ids?: string[];
  excluded_segment_ids?: string[];
  set_logic?: 'union' | 'intersection';
  record_count?: number;
  visibility?: 'org' | 'private';
}

export const AudienceErrors = {
  notFound: () => new AppError('AUDIENCE_NOT_FOUND', 404, 'Audience was not found.', { nextStep: 'Check the id; private audiences of other users and other organizations\' audiences are not visible.' }),
  missingSegments: () =>
    new AppError('MISSING_SEGMENTS', 400, 'An audience needs at least one included segment.', { nextStep: 'Send segment_ids (or segment_refs with role "include").' }),
};

/** segment_refs wins over segment_ids / excluded_segment_ids (spec 4.4). */
export function refsOf(item: Pick<AudienceItemInput, 'segment_refs' | 'segment_ids' | 'excluded_segment_ids'>): SegmentRef[] {
  const refs = item.segment_refs ?? [
    ...(item.segment_ids ?? []).map((segment_id) => ({ segment_id, role: 'include' as const })),
    ...(item.excluded_segment_ids ?? []).map((segment_id) => ({ segment_id, role: 'exclude' as const })),
  ];
  const seen = new Map<string, string>();
  const out: SegmentRef[] = [];
  for (const r of refs) {
    const prior = seen.get(r.segment_id);
    if (prior === r.role) continue; // the same segment twice in one role is one member
    if (prior) throw new AppError('INVALID_REQUEST', 400, `Segment ${r.segment_id} is both included and excluded.`, { nextStep: 'Give each segment one role.' });
    seen.set(r.segment_id, r.role);
    out.push(r);
  }
  return out;
}

/** Checks that every ref can enter a new composition; returns the problem as an error, or null. */
async function checkRefs(db: Kysely<DB>, viewer: Viewer, refs: SegmentRef[]): Promise<AppError | null> {
  if (!refs.some((r) => r.role === 'include')) return AudienceErrors.missingSegments();
  const rows = new Map((await segmentStore.findMany(db, viewer.orgId, refs.map((r) => r.segment_id))).map((s) => [s.id, s]));
  const missing = refs.filter((r) => { const s = rows.get(r.segment_id); return !s || !visibleTo(s, viewer); }).map((r) => r.segment_id);
  if (missing.length) {
    return new AppError('SEGMENT_NOT_FOUND', 404, `Segment(s) not found: ${missing.join(', ')}.`, {
      details: { segment_ids: missing }, nextStep: 'Only existing segments can be composed; check the ids.',
    });
  }
  const archived = refs.filter((r) => rows.get(r.segment_id)!.status === 'archived').map((r) => r.segment_id);
  if (archived.length) {
    return new AppError('SEGMENT_ARCHIVED', 409, `Archived segments cannot enter new compositions: ${archived.join(', ')}.`, {
      details: { segment_ids: archived }, nextStep: 'Reactivate them with PATCH /v1/segments/{id} {"status":"active"}.',
    });
  }
  return null;
}

export function createAudienceService(ctx: SegmentContext) {
  const { deps, recount } = ctx;
  const { db, graph, clock } = deps;
  const timeoutMs = deps.countTimeoutMs ?? 3000;

  async function findVisible(viewer: Viewer, id: string): Promise<AudienceRow> {
    const row = await audienceStore.find(db, viewer.orgId, id);
    if (!row || !visibleTo(row, viewer)) throw AudienceErrors.notFound();
    return row;
  }

  async function checkCampaign(orgId: string, campaignId: string | undefined | null): Promise<void> {
    if (campaignId && !(await campaignStore.exists(db, orgId, campaignId))) throw SegmentErrors.invalidCampaign(campaignId);
  }

  /** Validates, counts (outside any transaction) and returns what to insert. */
  async function prepare(viewer: Viewer, item: AudienceItemInput) {
    const refs = refsOf(item);
    const problem = await checkRefs(db, viewer, refs);
    if (problem) throw problem;
    const setLogic = item.set_logic ?? 'union';
    const loaded = await loadComposition(db, viewer.orgId, refs, setLogic);
    const count: CountOutcome = item.record_count !== undefined
      ? { ...floorCount(item.record_count), deferred: false }
      : await countComposition(graph, loaded, timeoutMs);
    return { item, refs, setLogic, count, matched: includesMatched(loaded) };
  }

  async function insertPrepared(viewer: Viewer, list: Awaited<ReturnType<typeof prepare>>[], campaignId: string | null): Promise<string[]> {
    const release = requireRelease(graph);
    const now = clock.now();
    const ids = list.map(() => newId('aud'));
    await recount.ready();
    await db.transaction().execute(async (trx) => {
      for (const [i, p] of list.entries()) {
        const row = audienceRow({
          id: ids[i]!, orgId: viewer.orgId, name: p.item.name, visibility: p.item.visibility ?? 'org', createdBy: viewer.userId,
          setLogic: p.setLogic, count: p.count, release, campaignId, now,
        });
        if (p.matched) row.matched_record_count = p.count.matched_record_count ?? null;
        await audienceStore.insert(trx, row, p.refs);
        if (p.count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: ids[i]!, version: 1 });
      }
    });
    return ids;
  }

  return {
    findVisible,

    async create(viewer: Viewer, input: AudienceItemInput & { campaign_id?: string }) {
      await checkCampaign(viewer.orgId, input.campaign_id);
      const prepared = await prepare(viewer, input);
      const [id] = await insertPrepared(viewer, [prepared], input.campaign_id ?? null);
      return presentAudience(db, viewer.orgId, (await audienceStore.find(db, viewer.orgId, id!))!);
    },

    /** Up to 25 items; items naming a missing segment are reported in `errors` and not created. */
    async bulkCreate(viewer: Viewer, input: { audiences: AudienceItemInput[]; campaign_id?: string }) {
      await checkCampaign(viewer.orgId, input.campaign_id);
      const settled = await Promise.all(input.audiences.map(async (item, index) => {
        try {
          return { ok: true as const, index, prepared: await prepare(viewer, item) };
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          return { ok: false as const, index, error };
        }
      }));
      const good = settled.flatMap((s) => (s.ok ? [s.prepared] : []));
      const ids = good.length ? await insertPrepared(viewer, good, input.campaign_id ?? null) : [];
      const rows = await audienceStore.findMany(db, viewer.orgId, ids);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return {
        audiences: await presentAudiences(db, viewer.orgId, ids.map((id) => byId.get(id)!)),
        errors: settled.flatMap((s) => (s.ok ? [] : [{
          index: s.index, name: input.audiences[s.index]!.name, error: s.error.code, message: s.error.message,
          ...(Array.isArray(s.error.details?.segment_ids) ? { segment_ids: s.error.details!.segment_ids as string[] } : {}),
        }])),
      };
    },

    async get(viewer: Viewer, id: string) {
      return presentAudience(db, viewer.orgId, await findVisible(viewer, id));
    },

    async list(viewer: Viewer, q: { limit?: number; cursor?: string; include_archived?: boolean; campaign_id?: string; unlinked?: boolean }) {
      if (q.campaign_id && q.unlinked) {
        throw new AppError('CONFLICTING_FILTERS', 400, 'campaign_id and unlinked=true cannot be combined.', { nextStep: 'Send one of them.' });
      }
      if (q.campaign_id) await checkCampaign(viewer.orgId, q.campaign_id);
      // A cursor belongs to one list: all audiences, unlinked ones, or one campaign's (ordered by link time).
      const scope = q.campaign_id ? `audiences:campaign:${q.campaign_id}` : q.unlinked ? 'audiences:unlinked' : 'audiences';
      const after = q.cursor ? decodeCursor(scope, q.cursor) : null;
      const limit = q.limit ?? 25;
      const rows = await audienceStore.list(db, viewer, {
        includeArchived: q.include_archived ?? false, campaignId: q.campaign_id ?? null, unlinked: q.unlinked ?? false, after, limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const at = last ? (q.campaign_id ? last.linked_at! : last.created_at) : null;
      return {
        audiences: await presentAudiences(db, viewer.orgId, page),
        count: page.length,
        next_cursor: rows.length > limit && last && at ? encodeCursor(scope, { at, id: last.id }) : null,
      };
    },

    async patch(viewer: Viewer, id: string, input: { name?: string; status?: 'archived' | 'active' }) {
      const current = await findVisible(viewer, id);
      const now = clock.now();
      const patch: Parameters<typeof audienceStore.update>[3] = { updated_at: now };
      if (input.name !== undefined) patch.name = input.name;
      if (input.status && input.status !== current.status) {
        if (input.status === 'archived') patch.status = 'archived';
        else if (current.status !== 'archived') throw SegmentErrors.transition(current.status, 'active', 'Refresh the audience (POST /v1/audiences/{id}/refresh) to renew an expired one.');
        else if (current.expires_at <= now) throw SegmentErrors.transition('archived', 'active', 'The audience passed its 90-day expiry while archived; refresh or fork it.');
        else patch.status = 'active';
      }
      await audienceStore.update(db, viewer.orgId, id, patch);
      return presentAudience(db, viewer.orgId, (await audienceStore.find(db, viewer.orgId, id))!);
    },

    /** Counts the current snapshot now; a count that overruns the deadline lands later through the job. */
    async count(viewer: Viewer, id: string) {
      const row = await findVisible(viewer, id);
      const refs = (await audienceStore.refs(db, viewer.orgId, [id])).get(id)!;
      const loaded = await loadComposition(db, viewer.orgId, refs, row.set_logic as 'union' | 'intersection');
      const count = await countComposition(graph, loaded, timeoutMs * 10);
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await audienceStore.landCount(trx, viewer.orgId, id, row.snapshot_version, {
          record_count: count.record_count, record_count_reason: count.record_count_reason,
          matched_record_count: includesMatched(loaded) ? (count.matched_record_count ?? null) : null,
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id, version: row.snapshot_version });
      });
      return presentAudience(db, viewer.orgId, (await audienceStore.find(db, viewer.orgId, id))!);
    },
  };
}

export type AudienceService = ReturnType<typeof createAudienceService>;
