/** Segments: create, read, list and refresh, dispatched to the subtype registry (spec 4.3, 3). */
import type { Viewer } from '../../../core/caller.ts';
import { pageQuery, toPage, type PageRequest } from '../../../core/page.ts';
import type { SegmentsContext } from '../context.ts';
import { SegmentErrors } from '../shared/errors.ts';
import { checkCreateFields } from '../subtypes/registry.ts';
import type { CreateSegmentInput, CreatedSegmentDoc, RefreshSegmentInput, RefreshedSegmentDoc, SegmentDoc } from './schemas.ts';
import { segmentStore } from './store.ts';

export function createSegmentService(ctx: SegmentsContext) {
  const { db, registry } = ctx;

  return {
    async create(viewer: Viewer, input: CreateSegmentInput): Promise<CreatedSegmentDoc> {
      const name = input.subtype ?? 'filter';
      // Checked before the subtype lookup, so the rule holds for every subtype (spec 4.3).
      if (input.record_limit !== undefined && name !== 'filter') throw SegmentErrors.recordLimitUnsupported(name);
      const subtype = registry.get(name);
      checkCreateFields(subtype, input);
      return subtype.create(viewer, input);
    },

    async get(viewer: Viewer, id: string): Promise<SegmentDoc> {
      const row = await ctx.findVisibleSegment(viewer, id);
      const usage = await segmentStore.usage(db, viewer.orgId, id);
      const campaigns = new Set(usage.map((u) => u.campaign_id).filter((c) => c !== null));
      return ctx.present(row, { audience_count: usage.length, campaign_count: campaigns.size });
    },

    async list(viewer: Viewer, q: PageRequest & { include_archived?: boolean }) {
      const page = pageQuery('segments', q);
      const rows = await segmentStore.list(db, viewer, {
        includeArchived: q.include_archived ?? false,
        after: page.after,
        limit: page.fetch,
      });
      const { items, next_cursor } = toPage(
        'segments',
        rows,
        page.limit,
        (r) => ({ at: r.created_at, id: r.id }),
        (r) => ctx.present(r),
      );
      return { segments: items, count: items.length, next_cursor };
    },

    /** Spec 3: archived segments refuse (409 SEGMENT_ARCHIVED); matched duplicates refresh through their source. */
    async refresh(viewer: Viewer, id: string, input: RefreshSegmentInput): Promise<RefreshedSegmentDoc> {
      const current = await ctx.findVisibleSegment(viewer, id);
      if (current.status === 'archived') throw SegmentErrors.archived(id);
      if (current.shared_source_segment_id) throw SegmentErrors.sharedSource(current.shared_source_segment_id);
      return registry.get(current.subtype, 'Refreshing').refresh(viewer, current, input);
    },
  };
}

export type SegmentService = ReturnType<typeof createSegmentService>;
