/** Segments: create, read, list, edit (spec 4.3, 3). Refresh, delete and duplicate: operations.ts. */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { checkRecordLimitGeography, type FilterGroup } from '../../graph/filters/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { audienceRow } from '../audiences/rows.ts';
import { audienceStore } from '../audiences/store.ts';
import { campaignStore } from '../campaigns/store.ts';
import {
  DEFAULT_EPHEMERAL_TTL_HOURS, SegmentErrors, ephemeralExpiry, loadCatalog, parseFilters, persistentExpiry, requireRelease, visibleTo,
} from './common.ts';
import { countWithin, createRecountScheduler, type CountOutcome } from './counting.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { singleSegmentQuery } from './membership.ts';
import type { EventPorts, GraphPorts, MatchedSegmentPort } from './ports.ts';
import { presentSegment } from './present.ts';
import { segmentStore, type SegmentRow, type Viewer } from './store.ts';

export interface SegmentDeps {
  db: Kysely<DB>;
  graph: GraphPorts;
  events: EventPorts;
  queue: JobQueue;
  clock: Clock;
  /** How long a request waits for a count before leaving it to the recount job. */
  countTimeoutMs?: number;
  /** Matched create/refresh (file-match module); null until wired. */
  matched?: () => MatchedSegmentPort | null;
}

export interface CreateSegmentInput {
  name: string;
  subtype?: string;
  create_audience?: boolean;
  filters?: unknown;
  filter_groups?: unknown;
  record_limit?: number;
  visibility?: 'org' | 'private';
  campaign_id?: string;
  webhook_url?: string;
  ephemeral?: boolean;
  ttl_hours?: number;
}

export function createSegmentContext(deps: SegmentDeps) {
  const recount = createRecountScheduler(deps.queue);
  const timeoutMs = deps.countTimeoutMs ?? 3000;

  async function findVisible(db: Kysely<DB>, viewer: Viewer, id: string, forUpdate = false): Promise<SegmentRow> {
    const row = await segmentStore.find(db, viewer.orgId, id, { forUpdate });
    if (!row || !visibleTo(row, viewer)) throw SegmentErrors.notFound();
    return row;
  }

  async function checkCampaign(orgId: string, campaignId: string | undefined): Promise<void> {
    if (campaignId !== undefined && !(await campaignStore.exists(deps.db, orgId, campaignId))) throw SegmentErrors.invalidCampaign(campaignId);
  }

  /** record_limit rule of spec 4.3: every OR branch narrowed to at most 100 ZIP3 regions. */
  async function checkCap(groups: FilterGroup[], recordLimit: number | null | undefined): Promise<void> {
    if (recordLimit === null || recordLimit === undefined) return;
    const check = await checkRecordLimitGeography(groups, deps.graph.zip3);
    if (!check.ok) {
      throw new AppError('CAP_GEOGRAPHY_REQUIRED', 400, check.branches.map((b) => b.message).join(' '), {
        details: { branches: check.branches },
        nextStep: 'Add a State, City or ZIP filter (= or IN) to every OR branch, covering at most 100 ZIP3 regions each.',
      });
    }
  }

  const countSegment = (row: Pick<SegmentRow, 'id' | 'subtype' | 'filter_groups' | 'record_limit' | 'current_version' | 'members_path'>): Promise<CountOutcome> =>
    countWithin(deps.graph, singleSegmentQuery(row), timeoutMs);

  return { deps, recount, findVisible, checkCampaign, checkCap, countSegment };
}

export type SegmentContext = ReturnType<typeof createSegmentContext>;

export function createSegmentService(ctx: SegmentContext) {
  const { deps, recount } = ctx;
  const { db, graph, events, clock } = deps;

  return {
    async create(viewer: Viewer, input: CreateSegmentInput) {
      const subtype = input.subtype ?? 'filter';
      // Checked before the subtype gate, so the rule holds for subtypes that land later too.
      if (input.record_limit !== undefined && subtype !== 'filter') {
        throw new AppError('RECORD_LIMIT_UNSUPPORTED', 400, `record_limit applies to filter segments only, not ${subtype}.`, {
          nextStep: 'Remove record_limit, or cap a filter segment instead.',
        });
      }
      const matched = subtype === 'matched' ? deps.matched?.() : null;
      if (matched) return matched.create(viewer, input as unknown as Record<string, unknown>);
      if (subtype !== 'filter') {
        throw new AppError('UNKNOWN_SUBTYPE', 400, `Creating ${subtype} segments is not available yet.`, {
          details: { subtype },
          nextStep: 'Create a filter segment (subtype "filter"); matched, similarity and propensity segments are coming.',
        });
      }
      if (input.ttl_hours !== undefined && !input.ephemeral) throw new AppError('INVALID_REQUEST', 400, 'ttl_hours applies to ephemeral segments only.');
      if (input.webhook_url) events.validateWebhookUrl(input.webhook_url);
      const catalog = await loadCatalog(graph);
      const groups = parseFilters(input, catalog);
      await ctx.checkCap(groups, input.record_limit);
      await ctx.checkCampaign(viewer.orgId, input.campaign_id);
      const release = requireRelease(graph);

      const now = clock.now();
      const id = newId('seg');
      const ephemeral = input.ephemeral === true;
      const base = { id, subtype, filter_groups: groups, record_limit: input.record_limit ?? null, current_version: 1, members_path: null };
      const count = await ctx.countSegment(base);
      // Ephemeral segments are scratch: no wrapper audience unless asked for.
      const createAudience = input.create_audience ?? !ephemeral;
      const audienceId = createAudience ? newId('aud') : null;
      await recount.ready();
      await db.transaction().execute(async (trx) => {
        await segmentStore.insert(trx, {
          ...base,
          filter_groups: JSON.stringify(groups),
          org_id: viewer.orgId,
          name: input.name,
          status: 'active',
          visibility: input.visibility ?? 'org',
          created_by: viewer.userId,
          ephemeral,
          record_count: count.record_count,
          record_count_reason: count.record_count_reason,
          version_created_at: now,
          details: JSON.stringify({}),
          input_record_count: null,
          match_count: null,
          shared_source_segment_id: null,
          error_message: null,
          workflow_run_id: null,
          origin_campaign_id: input.campaign_id ?? null,
          webhook_url: input.webhook_url ?? null,
          release_major: release.major,
          release_minor: release.minor,
          parent_segment_id: null,
          root_segment_id: null,
          parent_version: null,
          expires_at: ephemeral ? ephemeralExpiry(now, input.ttl_hours ?? DEFAULT_EPHEMERAL_TTL_HOURS) : persistentExpiry(now),
          created_at: now,
          updated_at: now,
          deleted_at: null,
        });
        if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'segment', id, version: 1 });
        if (audienceId) {
          await audienceStore.insert(
            trx,
            audienceRow({
              id: audienceId, orgId: viewer.orgId, name: input.name, visibility: input.visibility ?? 'org', createdBy: viewer.userId,
              setLogic: 'union', count, release, campaignId: input.campaign_id ?? null, now,
            }),
            [{ segment_id: id, role: 'include' }],
          );
          if (count.deferred) await recount.schedule(trx, { orgId: viewer.orgId, kind: 'audience', id: audienceId, version: 1 });
        }
        await events.segmentReady(trx, {
          orgId: viewer.orgId, segmentId: id, name: input.name, subtype, audienceId, recordCount: count.record_count, webhookUrl: input.webhook_url ?? null,
        });
      });
      const row = await segmentStore.find(db, viewer.orgId, id);
      return { ...presentSegment(row!), ...(audienceId ? { audience_id: audienceId } : {}) };
    },

    async get(viewer: Viewer, id: string) {
      const row = await ctx.findVisible(db, viewer, id);
      const usage = await segmentStore.usage(db, viewer.orgId, id);
      const campaigns = new Set(usage.map((u) => u.campaign_id).filter((c) => c !== null));
      return presentSegment(row, { audience_count: usage.length, campaign_count: campaigns.size });
    },

    async list(viewer: Viewer, q: { limit?: number; cursor?: string; include_archived?: boolean }) {
      const limit = q.limit ?? 25;
      const scope = 'segments';
      const after = q.cursor ? decodeCursor(scope, q.cursor) : null;
      const rows = await segmentStore.list(db, viewer, { includeArchived: q.include_archived ?? false, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        segments: page.map((r) => presentSegment(r)),
        count: page.length,
        next_cursor: rows.length > limit && last ? encodeCursor(scope, { at: last.created_at, id: last.id }) : null,
      };
    },
  };
}

export type SegmentService = ReturnType<typeof createSegmentService>;
