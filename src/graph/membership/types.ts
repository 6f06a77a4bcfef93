import type { FilterGroup } from '../filters/index.ts';

/**
 * Who belongs to a segment, in warehouse terms. A segment's membership is either a filter expression
 * over the current graph release or a materialized member set (Parquet of person keys written by the
 * worker: matched uploads, similarity and propensity results, scratch segments).
 *
 * This is the contract between the segments/audiences modules (which know segments) and the
 * warehouse-side counting and sampling (which knows SQL). Neither side reaches into the other.
 */
export type SegmentMembership =
  | {
      kind: 'filter';
      segmentId: string;
      groups: FilterGroup[];
      /** Cap of spec 4.3; the capped subset is stable per (segment, version). */
      recordLimit: number | null;
      /** Seed of the stable pseudo-random subset: changes only when the segment version changes. */
      subsetSeed: string;
    }
  | {
      kind: 'members';
      segmentId: string;
      subtype: 'matched' | 'similarity' | 'propensity';
      /** Absolute path of a Parquet file with a `person_key BIGINT` column; null while nothing is materialized. */
      parquetPath: string | null;
    };

/** A composition of segments: spec 2 "Audience" set logic. Excluded segments are always subtracted. */
export interface Composition {
  include: SegmentMembership[];
  exclude: SegmentMembership[];
  setLogic: 'union' | 'intersection';
}

/** What discovery counts or samples: raw filter groups or a composition of saved segments. */
export type MembershipQuery = { kind: 'filters'; groups: FilterGroup[] } | { kind: 'composition'; composition: Composition };
