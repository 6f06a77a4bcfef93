/** Errors of the segments area (segments, audiences, campaigns), one factory per code. */
import { DomainError } from '../../../core/errors.ts';
import { toClientError, type WarehouseTimeoutError } from '../../../graph/index.ts';

export const SegmentErrors = {
  notFound: () =>
    new DomainError('SEGMENT_NOT_FOUND', 'Segment was not found.', {
      nextStep: "Check the id; deleted segments, private segments of other users and other organizations' segments are not visible.",
    }),
  archived: (id: string) =>
    new DomainError('SEGMENT_ARCHIVED', `Segment ${id} is archived.`, {
      nextStep: 'Reactivate it with PATCH /v1/segments/{id} {"status":"active"} first.',
    }),
  invalidCampaign: (id: string) =>
    new DomainError('INVALID_CAMPAIGN_ID', `Campaign ${id} does not exist in this organization; nothing was created.`, {
      nextStep: 'Create the campaign with POST /v1/campaigns or omit campaign_id.',
    }),
  transition: (from: string, to: string, hint?: string) =>
    new DomainError('INVALID_STATUS_TRANSITION', `Cannot move from ${from} to ${to}.`, {
      details: { current_status: from, requested_status: to },
      nextStep: hint,
    }),
  catalogUnavailable: (cause: unknown) =>
    new DomainError(
      'FILTER_CATALOG_UNAVAILABLE',
      'The field catalog could not be read, so filters cannot be validated; nothing was created.',
      { cause, nextStep: 'Retry shortly.' },
    ),
  queryTimeout: (timeout: WarehouseTimeoutError) =>
    toClientError(
      timeout,
      'Narrow the filters of the segments (fewer conditions, fewer OR groups), then count again; until then record_count is null with count_failed.',
    ),
  noRelease: () =>
    new DomainError('DATA_RELEASE_UNAVAILABLE', 'No data release is published yet.', {
      nextStep: 'Retry shortly; the identity graph is being loaded.',
    }),
  unknownSubtype: (subtype: string, action: string) =>
    new DomainError('UNKNOWN_SUBTYPE', `${action} ${subtype} segments is not available.`, {
      details: { subtype },
      nextStep: 'Use one of the subtypes listed in the API reference (filter, matched, similarity, propensity).',
    }),
  recordLimitUnsupported: (subtype: string) =>
    new DomainError('RECORD_LIMIT_UNSUPPORTED', `record_limit applies to filter segments only, not ${subtype}.`, {
      nextStep: 'Remove record_limit, or cap a filter segment instead.',
    }),
  fieldsNotForSubtype: (fields: string[], subtype: string) =>
    new DomainError(
      'INVALID_REQUEST',
      `${fields.map((f) => `\`${f}\``).join(', ')} ${fields.length > 1 ? 'do' : 'does'} not apply to ${subtype} segments.`,
      {
        details: { fields, subtype },
        nextStep: `Remove ${fields.join(', ')}, or create a segment of the subtype ${fields.length > 1 ? 'they belong' : 'it belongs'} to.`,
      },
    ),
  sharedSource: (sourceId: string) =>
    new DomainError('SHARED_SOURCE_DATA', "This duplicate shares its source segment's data and cannot be refreshed on its own.", {
      details: { source_segment_id: sourceId },
      nextStep: `Refresh the source segment ${sourceId} instead.`,
    }),
};

export const AudienceErrors = {
  notFound: () =>
    new DomainError('AUDIENCE_NOT_FOUND', 'Audience was not found.', {
      nextStep: "Check the id; private audiences of other users and other organizations' audiences are not visible.",
    }),
  missingSegments: () =>
    new DomainError('MISSING_SEGMENTS', 'An audience needs at least one included segment.', {
      nextStep: 'Send segment_ids (or segment_refs with role "include").',
    }),
  expired: () =>
    new DomainError('AUDIENCE_EXPIRED', 'The audience version expired.', {
      nextStep: 'Refresh it (POST /v1/audiences/{id}/refresh) to get a current version.',
    }),
};

export const CampaignErrors = {
  notFound: () =>
    new DomainError('CAMPAIGN_NOT_FOUND', 'Campaign was not found.', {
      nextStep: "Check the id; other organizations' campaigns are not visible.",
    }),
};
