/**
 * Saved objects as discovery input (spec 4.2: `segment_id`, `audience_id`, `segment_ids` + `set_logic` +
 * `excluded_segment_ids`) -> the composition the warehouse counts. Visibility is the caller's: a
 * private segment resolves for its creator only.
 */
import type { Viewer } from '../../../core/caller.ts';
import type { Composition } from '../../../graph/index.ts';
import type { SegmentsContext } from '../context.ts';
import { segmentStore } from '../segment/store.ts';
import { AudienceErrors, SegmentErrors } from '../shared/errors.ts';
import { visibleTo } from '../shared/rules.ts';
import { loadComposition } from './composition.ts';
import { refsOf } from './service.ts';
import { audienceStore } from './store.ts';

export type SegmentInput =
  | { kind: 'segment'; segmentId: string }
  | { kind: 'audience'; audienceId: string }
  | { kind: 'segments'; segmentIds: string[]; setLogic: 'union' | 'intersection'; excludedSegmentIds: string[] };

export function createInputResolver(ctx: SegmentsContext) {
  const { db } = ctx;
  return {
    /** 404 for ids unknown or not visible; 409 AUDIENCE_EXPIRED where counting an audience is not possible. */
    async resolveSegmentInput(viewer: Viewer, input: SegmentInput): Promise<Composition> {
      if (input.kind === 'segment') {
        const s = await ctx.findVisibleSegment(viewer, input.segmentId);
        return { include: [ctx.membershipOf(s)], exclude: [], setLogic: 'union' };
      }
      if (input.kind === 'audience') {
        const a = await ctx.findVisibleAudience(viewer, input.audienceId);
        if (a.status === 'expired') throw AudienceErrors.expired();
        const refs = (await audienceStore.refs(db, viewer.orgId, [a.id])).get(a.id)!;
        return (await loadComposition(ctx, viewer.orgId, refs, a.set_logic as 'union' | 'intersection')).composition;
      }
      const refs = refsOf({ segment_ids: input.segmentIds, excluded_segment_ids: input.excludedSegmentIds });
      if (!refs.some((r) => r.role === 'include')) throw AudienceErrors.missingSegments();
      const rows = new Map(
        (
          await segmentStore.findMany(
            db,
            viewer.orgId,
            refs.map((r) => r.segment_id),
          )
        ).map((s) => [s.id, s]),
      );
      for (const r of refs) {
        const s = rows.get(r.segment_id);
        if (!s || !visibleTo(s, viewer)) throw SegmentErrors.notFound();
        if (s.status === 'archived') throw SegmentErrors.archived(s.id);
      }
      return (await loadComposition(ctx, viewer.orgId, refs, input.setLogic)).composition;
    },
  };
}

export type InputResolver = ReturnType<typeof createInputResolver>;
