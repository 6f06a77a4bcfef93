/** The `similarity` and `propensity` segment subtypes, registered into the segments area (spec 2, 3, 4.3). */
import { materializedMembership, type SegmentSubtype } from '../segments/index.ts';
import { modelDetails, type Launcher } from './launch.ts';
import type { WorkflowKind } from './store.ts';

const MODEL_FIELDS = ['model_type', 'excluded_columns', 'model_name', 'generation_metadata_id', 'target_size', 'hitl'];

export function createModelSubtype(kind: WorkflowKind, launcher: Launcher): SegmentSubtype {
  return {
    name: kind,
    createFields: [...(kind === 'similarity' ? ['seed_segment_id', 'seed_description'] : ['positive_class_segment_id']), ...MODEL_FIELDS],
    createsAudienceByDefault: false,
    customerList: false,
    onDuplicate: 'recount',
    create: (viewer, input) => launcher.create(viewer, kind, input),
    refresh: (viewer, row, input) => launcher.refresh(viewer, row, input),
    membership: materializedMembership,
    presentFields(row) {
      const input = modelDetails(row.details)?.input;
      if (kind === 'propensity') {
        return {
          ...(input?.positive_class_segment_id ? { positive_class_segment_id: input.positive_class_segment_id } : {}),
          workflow_run_id: row.workflow_run_id,
        };
      }
      return {
        ...(input?.seed_segment_id ? { seed_segment_id: input.seed_segment_id } : {}),
        ...(input?.seed_description ? { seed_description: input.seed_description } : {}),
        workflow_run_id: row.workflow_run_id,
      };
    },
  };
}
