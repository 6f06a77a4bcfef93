/**
 * An audience's refs -> a Composition of the segments that still exist (deleted ones drop out of
 * the composition and the count: spec 3), and the record_count rules of spec 4.4.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Composition } from '../../graph/membership/types.ts';
import { countWithin, type CountOutcome } from '../segments/counting.ts';
import { membershipOf } from '../segments/membership.ts';
import type { GraphPorts } from '../segments/ports.ts';
import { segmentStore, type SegmentRow } from '../segments/store.ts';
import type { SegmentRef } from './store.ts';

export interface LoadedComposition {
  composition: Composition;
  includeRows: SegmentRow[];
  excludeRows: SegmentRow[];
}

export async function loadComposition(db: Kysely<DB>, orgId: string, refs: readonly SegmentRef[], setLogic: 'union' | 'intersection'): Promise<LoadedComposition> {
  const rows = new Map((await segmentStore.findMany(db, orgId, refs.map((r) => r.segment_id))).map((r) => [r.id, r]));
  const pick = (role: SegmentRef['role']) => refs.filter((r) => r.role === role).map((r) => rows.get(r.segment_id)).filter((r): r is SegmentRow => !!r);
  const includeRows = pick('include');
  const excludeRows = pick('exclude');
  return {
    composition: { include: includeRows.map(membershipOf), exclude: excludeRows.map(membershipOf), setLogic },
    includeRows,
    excludeRows,
  };
}

/**
 * Spec 4.4: one included filter segment without exclusions takes its stored count; a composition
 * waiting on a building segment stays uncounted; anything else is counted now (within the deadline).
 */
export async function countComposition(graph: GraphPorts, loaded: LoadedComposition, timeoutMs: number): Promise<CountOutcome> {
  const { includeRows, excludeRows, composition } = loaded;
  if (includeRows.length === 1 && excludeRows.length === 0 && includeRows[0]!.subtype === 'filter') {
    const s = includeRows[0]!;
    return {
      record_count: s.record_count,
      record_count_reason: (s.record_count === null ? (s.record_count_reason ?? 'not_counted') : null) as CountOutcome['record_count_reason'],
      deferred: s.record_count_reason === 'counting',
    };
  }
  if ([...includeRows, ...excludeRows].some((s) => s.status === 'pending')) {
    return { record_count: null, record_count_reason: 'not_counted', deferred: false };
  }
  return countWithin(graph, { kind: 'composition', composition }, timeoutMs);
}

export const includesMatched = (loaded: LoadedComposition) => loaded.includeRows.some((s) => s.subtype === 'matched');
