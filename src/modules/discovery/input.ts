/**
 * Discovery input: exactly one of `filters`, `filter_groups`, `segment_id`, `audience_id`,
 * `segment_ids` (+ `set_logic`, `excluded_segment_ids`). Raw filters are validated here with the
 * filter compiler; saved segments and audiences are resolved through a port the segments module
 * implements, so discovery never reads segment tables.
 */
import { createHash } from 'node:crypto';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import { assertFilterBounds, normalizeFilterInput, validateFilterGroups, type FilterCatalog, type FilterIssue } from '../../graph/index.ts';
import { isSingleFilterSegment } from '../../graph/index.ts';
import type { Composition, MembershipQuery } from '../../graph/index.ts';

import type { SegmentInput } from '../segments/index.ts';

/**
 * What discovery needs from the segments area (its resolver): 404 SEGMENT_NOT_FOUND / AUDIENCE_NOT_FOUND
 * for an id unknown or not visible to the caller, and the resource's state errors where counting is not possible.
 */
export interface SegmentInputResolver {
  resolveSegmentInput(viewer: Viewer, input: SegmentInput): Promise<Composition>;
}

export interface DiscoveryInputBody {
  filters?: unknown;
  filter_groups?: unknown;
  segment_id?: string;
  audience_id?: string;
  segment_ids?: string[];
  set_logic?: 'union' | 'intersection';
  excluded_segment_ids?: string[];
}

export interface ResolvedInput {
  query: MembershipQuery;
  /** Default breakdowns apply: raw filters, one filter segment, or an audience. */
  breakdownsByDefault: boolean;
  /** Stable identity of the input as sent; same input, same key. */
  key: string;
}

const FORMS = ['filters', 'filter_groups', 'segment_id', 'audience_id', 'segment_ids'] as const;

export function invalidFilter(issues: FilterIssue[]): DomainError {
  const first = issues[0];
  return new DomainError('INVALID_FILTER', `Invalid filter${first ? `: ${first.path}: ${first.message}` : ''}`, {
    issues,
    nextStep: 'Fix the filters listed in `issues` (see GET /v1/catalog/fields for fields, operators and values).',
  });
}

export async function resolveDiscoveryInput(
  viewer: Viewer,
  body: DiscoveryInputBody,
  deps: { catalog: () => Promise<FilterCatalog>; segments: SegmentInputResolver },
): Promise<ResolvedInput> {
  const present = FORMS.filter((f) => body[f] !== undefined);
  if (present.length > 1) {
    throw new DomainError('AMBIGUOUS_INPUT', `Send exactly one input form; got ${present.map((f) => `\`${f}\``).join(', ')}.`, {
      details: { input_forms: present },
      nextStep: `Keep one of ${FORMS.join(', ')} and remove the others.`,
    });
  }
  if (present.length === 0) {
    throw new DomainError('NO_INPUT_SPECIFIED', `No input given: send one of ${FORMS.join(', ')}.`, {
      nextStep: 'Add `filters` (an array of conditions) or a saved `segment_id` / `audience_id`.',
    });
  }
  if (present[0] !== 'segment_ids' && (body.set_logic !== undefined || body.excluded_segment_ids !== undefined)) {
    throw new DomainError('INVALID_REQUEST', '`set_logic` and `excluded_segment_ids` go only with `segment_ids`.', {
      nextStep: 'Remove them, or send the segments as `segment_ids`.',
    });
  }
  const key = createHash('sha256');

  if (present[0] === 'filters' || present[0] === 'filter_groups') {
    assertFilterBounds({ filters: body.filters, filter_groups: body.filter_groups });
    const catalog = await deps.catalog();
    const normalized = normalizeFilterInput({ filters: body.filters, filter_groups: body.filter_groups }, catalog);
    if (!normalized.ok) throw invalidFilter(normalized.issues);
    const validated = validateFilterGroups(normalized.groups, catalog, { form: normalized.form });
    if (!validated.ok) throw invalidFilter(validated.issues);
    key.update(JSON.stringify(['filters', validated.groups.map((g) => [g.combinator, g.filters])]));
    return { query: { kind: 'filters', groups: validated.groups }, breakdownsByDefault: true, key: key.digest('base64url') };
  }

  let input: SegmentInput;
  if (body.segment_id !== undefined) input = { kind: 'segment', segmentId: body.segment_id };
  else if (body.audience_id !== undefined) input = { kind: 'audience', audienceId: body.audience_id };
  else {
    input = {
      kind: 'segments',
      segmentIds: body.segment_ids!,
      setLogic: body.set_logic ?? 'union',
      excludedSegmentIds: body.excluded_segment_ids ?? [],
    };
  }
  const composition = await deps.segments.resolveSegmentInput(viewer, input);
  key.update(JSON.stringify(['saved', input, composition]));
  const breakdownsByDefault = input.kind === 'audience' || (input.kind === 'segment' && isSingleFilterSegment(composition));
  return { query: { kind: 'composition', composition }, breakdownsByDefault, key: key.digest('base64url') };
}
