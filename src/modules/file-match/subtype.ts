/** The `matched` segment subtype, registered into the segments area by file matching (spec 2, 3, 4.3). */
import type { SegmentSubtype, SegmentsApi } from '../segments/index.ts';
import { materializedMembership, matchRate } from '../segments/index.ts';
import { matchedDetails } from './details.ts';
import type { FileMatchService } from './service.ts';

export function createMatchedSubtype(files: FileMatchService): SegmentSubtype {
  return {
    name: 'matched',
    createFields: ['file_format', 'compression', 'match_level', 'spatial_mode', 'shard_count', 'hitl', 'session_id'],
    createsAudienceByDefault: true,
    customerList: true,
    onDuplicate: 'share_source',
    create: (viewer, input) => files.create(viewer, input),
    refresh: (viewer, row, input) => files.refresh(viewer, row, input),
    membership: materializedMembership,
    presentFields(row) {
      const d = matchedDetails(row.details);
      return {
        file_format: d.file_format,
        // Spec 2: normalized to none on read.
        compression: 'none',
        shard_count: d.shard_count,
        column_mappings: d.column_mappings,
        mapping_confirmed: d.mapping_confirmed,
        input_record_count: row.input_record_count,
        match_count: row.match_count,
        match_rate: matchRate(row.match_count, row.input_record_count),
      };
    },
  };
}
