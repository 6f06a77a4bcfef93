/**
 * An audience's refs -> a Composition of the segments that still exist (deleted ones drop out of
 * the composition and the count: spec 3), and the record_count rules of spec 4.4.
 */
import type { Composition } from '../../../graph/index.ts';
import type { SegmentsContext } from '../context.ts';
import { segmentStore, type SegmentRow } from '../segment/store.ts';
import { countWithin, type CountOutcome } from '../shared/counting.ts';
import type { SegmentRef } from './store.ts';

export interface LoadedComposition {
  composition: Composition;
  includeRows: SegmentRow[];
  excludeRows: SegmentRow[];
}

export async function loadComposition(
  ctx: SegmentsContext,
  orgId: string,
  refs: readonly SegmentRef[],
  setLogic: 'union' | 'intersection',
): Promise<LoadedComposition> {
  const rows = new Map(
    (
      await segmentStore.findMany(
        ctx.db,
        orgId,
        refs.map((r) => r.segment_id),
      )
    ).map((r) => [r.id, r]),
  );
  const pick = (role: SegmentRef['role']) =>
    refs
      .filter((r) => r.role === role)
      .map((r) => rows.get(r.segment_id))
      .filter((r): r is SegmentRow => !!r);
  const includeRows = pick('include');
  const excludeRows = pick('exclude');
  return {
    composition: { include: includeRows.map(ctx.membershipOf), exclude: excludeRows.map(ctx.membershipOf), setLogic },
    includeRows,
    excludeRows,
  };
}

/**
 * Spec 4.4: one included segment without exclusions takes its stored count (the same members); a
 * composition waiting on a building segment stays uncounted; anything else is counted now (within the
 * deadline).
 */
export async function countComposition(ctx: SegmentsContext, loaded: LoadedComposition, timeoutMs: number): Promise<CountOutcome> {
  const { includeRows, excludeRows, composition } = loaded;
  if (includeRows.length === 1 && excludeRows.length === 0 && includeRows[0]!.status !== 'pending') {
    const s = includeRows[0]!;
    return {
      record_count: s.record_count,
      record_count_reason: (s.record_count === null
        ? (s.record_count_reason ?? 'not_counted')
        : null) as CountOutcome['record_count_reason'],
      deferred: s.record_count_reason === 'counting',
    };
  }
  if ([...includeRows, ...excludeRows].some((s) => s.status === 'pending')) {
    return { record_count: null, record_count_reason: 'not_counted', deferred: false };
  }
  return countWithin(ctx.deps.graph, { kind: 'composition', composition }, timeoutMs, ctx.privacy);
}

/** Whether an included segment is a customer's own list (the audience then shows matched_record_count: spec 2). */
export const includesCustomerList = (ctx: SegmentsContext, loaded: LoadedComposition) =>
  loaded.includeRows.some((s) => ctx.registry.has(s.subtype) && ctx.registry.get(s.subtype).customerList);
