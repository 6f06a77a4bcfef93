/**
 * The labelled persons of a run as warehouse SQL: the members of a seed / positive-class segment, or
 * the persons matching the seed filters (parsed from a description or edited at review). Also the
 * checks made before anything is created: the class segment is visible and built, the class is at
 * least the privacy floor. Also whether the class is the customer's own list (decision 051): its
 * persons are then never members of the segment built from it.
 */
import type { MeasuredSet } from '../privacy/index.ts';
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import type { DB } from '../../db/schema.ts';
import type { FilterCatalog, FilterGroup } from '../../graph/index.ts';
import { membershipSql } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { countMembers, type MemberSet, type ModelWarehouse } from '../../modelling/index.ts';
import type { SegmentRow, SegmentsApi } from '../segments/index.ts';
import { ModelSegmentErrors } from './errors.ts';
import type { ProtectNumbers } from './protect.ts';
import type { RunInput } from './store.ts';

export type LabelledSet = MemberSet & {
  query: MembershipQuery;
  /**
   * The class holds persons the customer named (a matched segment: file match or scratch segment), not
   * persons the service selected: the model segment must leave them out, or it hands the list's matched
   * residents back as top-scored members, identity fields included (decision 051, reverse lookup).
   */
  customerList: boolean;
};

/**
 * Subtypes whose members the service selected from the graph (filters, or a model that already left
 * out any list it learned from). Any other subtype, `matched` and any added later, counts as a
 * customer's list: failing closed.
 */
const SERVICE_SELECTED: ReadonlySet<string> = new Set(['filter', 'similarity', 'propensity']);

export function createSeeds(deps: {
  db: Kysely<DB>;
  segments: SegmentsApi;
  warehouse: ModelWarehouse;
  floor: number;
  protect: ProtectNumbers;
  /** The privacy layer's measure (decision 052): the seed's member set as discovery shows it, and the question answered. */
  measure?: (query: MembershipQuery) => Promise<{ set: MeasuredSet; answered: MembershipQuery }>;
}) {
  const { db, segments, warehouse, floor } = deps;

  /** The set's SQL and the membership query it answers (the question its size is shown as). */
  function ofQuery(query: MembershipQuery, catalog: FilterCatalog, customerList: boolean): LabelledSet {
    const m = membershipSql(query, { catalog });
    return { sql: m.select, params: m.params, query, customerList };
  }

  const ofSegment = (row: SegmentRow, catalog: FilterCatalog) =>
    ofQuery(
      { kind: 'composition', composition: { include: [segments.membershipOf(row)], exclude: [], setLogic: 'union' } },
      catalog,
      !SERVICE_SELECTED.has(row.subtype),
    );
  const ofFilters = (groups: FilterGroup[], catalog: FilterCatalog) => ofQuery({ kind: 'filters', groups }, catalog, false);

  /** A seed or positive-class segment the caller can see, with members to learn from. */
  async function classSegment(viewer: Viewer, id: string): Promise<SegmentRow> {
    const row = await segments.findVisibleSegment(viewer, id);
    if (row.status !== 'active') throw ModelSegmentErrors.notReady(id, row.status);
    return row;
  }

  /**
   * Persons of the class in the current release; 422 when the privacy layer would not show the set's
   * size (its sticky threshold, decision 015), so the refusal says no more than discovery's count of
   * the same set: not an exact "below 50" answer.
   */
  async function checkFloor(set: LabelledSet, what: string): Promise<number> {
    const n = await countMembers(warehouse, set);
    // By member set when the layer measures (so the refusal is discovery's for the same people).
    const measured = deps.measure ? (await deps.measure(set.query)).set : null;
    const ctx = {
      orgId: '',
      subject: 'seed' as const,
      floor,
      labelled: set.query,
      members: null,
      model: '',
      ...(measured ? { labelledSet: measured } : {}),
    };
    const shown = deps.protect({ persons: measured?.n ?? n }, ctx).persons;
    if (shown === null || shown < floor) throw ModelSegmentErrors.belowFloor(what, floor);
    return n;
  }

  /**
   * The labelled set of a run, read when the job runs (the class segment as it is then). A class
   * segment deleted or no longer built fails the run with a message.
   */
  async function labelledOf(orgId: string, input: RunInput, catalog: FilterCatalog): Promise<LabelledSet> {
    const id = input.positive_class_segment_id ?? input.seed_segment_id ?? null;
    if (id) {
      const row = await segments.findSegment(db, orgId, id);
      if (!row) throw ModelSegmentErrors.classGone(id);
      if (row.status !== 'active') throw ModelSegmentErrors.notReady(id, row.status);
      return ofSegment(row, catalog);
    }
    if (input.seed_filter_groups?.length) return ofFilters(input.seed_filter_groups, catalog);
    throw ModelSegmentErrors.seedDescription(input.seed_parse?.unrecognized ?? [], input.seed_parse?.notes ?? []);
  }

  /**
   * The labelled set measured by member set (decision 052), recorded on the run so its size shows as
   * discovery shows the set, with the question answered (the set without its low-effect items).
   */
  const measured = async (set: LabelledSet): Promise<{ set: MeasuredSet; answered: MembershipQuery } | null> =>
    deps.measure ? deps.measure(set.query) : null;

  /** The persons a model learns from: the answered question when the seed step recorded one (same list flag). */
  const answeredOf = (set: LabelledSet, answered: MembershipQuery | null | undefined, catalog: FilterCatalog): LabelledSet =>
    answered ? ofQuery(answered, catalog, set.customerList) : set;

  return { ofSegment, ofFilters, classSegment, checkFloor, labelledOf, measured, answeredOf };
}

export type Seeds = ReturnType<typeof createSeeds>;
