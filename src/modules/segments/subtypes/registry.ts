/**
 * The segment subtype registry. Each subtype (spec 2: filter, matched, similarity, propensity) declares
 * how it is created and refreshed, which create fields are its own, how its members are read and which
 * fields of the segment document it adds. Segments, audiences and discovery ask the registry; nothing
 * outside it branches on a subtype. `filter` is built in; other areas register theirs (file matching
 * registers `matched`).
 */
import type { Viewer } from '../../../core/caller.ts';
import type { SegmentMembership } from '../../../graph/index.ts';
import type { SegmentPatch, SegmentRow } from '../segment/store.ts';
import type { CountOutcome } from '../shared/counting.ts';
import type { CreateSegmentInput, CreatedSegmentDoc, RefreshSegmentInput, RefreshedSegmentDoc, SegmentDoc } from '../segment/schemas.ts';
import { SegmentErrors } from '../shared/errors.ts';

export const SUBTYPE_NAMES = ['filter', 'matched', 'similarity', 'propensity'] as const;
export type Subtype = (typeof SUBTYPE_NAMES)[number];

/** Create-body fields every subtype accepts. */
export const COMMON_CREATE_FIELDS = ['name', 'subtype', 'create_audience', 'visibility', 'campaign_id', 'webhook_url'] as const;

/** Fields of the segment document a subtype adds (all optional in the schema). */
export type SubtypeFields = Partial<
  Pick<
    SegmentDoc,
    | 'file_format'
    | 'compression'
    | 'shard_count'
    | 'column_mappings'
    | 'mapping_confirmed'
    | 'input_record_count'
    | 'match_count'
    | 'match_rate'
    | 'seed_description'
    | 'seed_segment_id'
    | 'positive_class_segment_id'
    | 'workflow_run_id'
  >
>;

/** A PATCH that changes membership (filters, record_limit): the row patch of the new version and its count. */
export interface MembershipEdit {
  patch: SegmentPatch;
  count: CountOutcome;
  version: number;
}

export interface SegmentSubtype {
  readonly name: Subtype;
  /** Create-body fields this subtype accepts besides the common ones; the others' are refused. */
  readonly createFields: readonly string[];
  /** Default of `create_audience` (spec 4.3). */
  readonly createsAudienceByDefault: boolean;
  /** Members come from the customer's own uploaded list: audiences including it show matched_record_count (spec 2). */
  readonly customerList: boolean;
  /** A duplicate recounts its own definition (`recount`) or reads its source's member set (`share_source`). */
  readonly onDuplicate: 'recount' | 'share_source';
  create(viewer: Viewer, input: CreateSegmentInput): Promise<CreatedSegmentDoc>;
  refresh(viewer: Viewer, row: SegmentRow, input: RefreshSegmentInput): Promise<RefreshedSegmentDoc>;
  /** How the warehouse reads this segment's members. */
  membership(row: SegmentRow): SegmentMembership;
  presentFields(row: SegmentRow): SubtypeFields;
  /** PATCH of filters / record_limit; subtypes without it refuse such a PATCH. */
  editMembership?(
    viewer: Viewer,
    row: SegmentRow,
    input: { filters?: unknown; filter_groups?: unknown; record_limit?: number | null },
  ): Promise<MembershipEdit>;
}

export interface SubtypeRegistry {
  register(subtype: SegmentSubtype): void;
  /** The subtype of a name; 400 UNKNOWN_SUBTYPE when none is registered. */
  get(name: string, action?: string): SegmentSubtype;
  has(name: string): boolean;
  names(): Subtype[];
}

export function createSubtypeRegistry(): SubtypeRegistry {
  const byName = new Map<string, SegmentSubtype>();
  return {
    register(subtype) {
      if (byName.has(subtype.name)) throw new Error(`segment subtype ${subtype.name} is registered twice`);
      byName.set(subtype.name, subtype);
    },
    get(name, action = 'Creating') {
      const subtype = byName.get(name);
      if (!subtype) throw SegmentErrors.unknownSubtype(name, action);
      return subtype;
    },
    has: (name) => byName.has(name),
    names: () => [...byName.keys()] as Subtype[],
  };
}

/** Refuses create fields that belong to other subtypes (a field silently ignored is a bug report waiting). */
export function checkCreateFields(subtype: SegmentSubtype, input: CreateSegmentInput): void {
  if (input.record_limit !== undefined && subtype.name !== 'filter') throw SegmentErrors.recordLimitUnsupported(subtype.name);
  const allowed = new Set<string>([...COMMON_CREATE_FIELDS, ...subtype.createFields]);
  const foreign = Object.keys(input).filter((k) => !allowed.has(k) && (input as Record<string, unknown>)[k] !== undefined);
  if (foreign.length) throw SegmentErrors.fieldsNotForSubtype(foreign, subtype.name);
}
