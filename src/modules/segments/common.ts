/** Rules shared by segments and audiences: expiry, the privacy floor, error factories, visibility. */
import { AppError } from '../../http/errors.ts';
import type { FilterCatalog, FilterGroup } from '../../graph/filters/index.ts';
import { normalizeFilterInput, validateFilterGroups } from '../../graph/filters/index.ts';
import { DAY, HOUR } from '../../lib/clock.ts';
import type { GraphPorts, ReleaseRef } from './ports.ts';
import type { Viewer } from './store.ts';

export const EXPIRY_DAYS = 90;
export const DEFAULT_EPHEMERAL_TTL_HOURS = 24;
/** Graph-derived counts below this are never shown (ARCHITECTURE.md, privacy floor). */
export const PRIVACY_FLOOR = 50;

export const persistentExpiry = (now: Date) => new Date(now.getTime() + EXPIRY_DAYS * DAY);
/** Hour-granular: the TTL counts whole hours from the start of the current hour, rounded up. */
export const ephemeralExpiry = (now: Date, hours: number) => new Date(Math.ceil(now.getTime() / HOUR) * HOUR + hours * HOUR);

export type CountReason = 'below_privacy_floor' | 'counting' | 'not_counted' | 'count_failed';
export interface ShownCount {
  record_count: number | null;
  record_count_reason: CountReason | null;
}

export function floorCount(n: number): ShownCount {
  return n < PRIVACY_FLOOR ? { record_count: null, record_count_reason: 'below_privacy_floor' } : { record_count: n, record_count_reason: null };
}

export const visibleTo = (row: { visibility: string; created_by: string }, viewer: Viewer) =>
  row.visibility === 'org' || row.created_by === viewer.userId;

export const sameRelease = (a: ReleaseRef, b: { release_major: number; release_minor: number }) =>
  a.major === b.release_major && a.minor === b.release_minor;

export const SegmentErrors = {
  notFound: () => new AppError('SEGMENT_NOT_FOUND', 404, 'Segment was not found.', { nextStep: 'Check the id; deleted segments, private segments of other users and other organizations\' segments are not visible.' }),
  archived: (id: string) =>
    new AppError('SEGMENT_ARCHIVED', 409, `Segment ${id} is archived.`, { nextStep: 'Reactivate it with PATCH /v1/segments/{id} {"status":"active"} first.' }),
  invalidCampaign: (id: string) =>
    new AppError('INVALID_CAMPAIGN_ID', 400, `Campaign ${id} does not exist in this organization; nothing was created.`, { nextStep: 'Create the campaign with POST /v1/campaigns or omit campaign_id.' }),
  transition: (from: string, to: string, hint?: string) =>
    new AppError('INVALID_STATUS_TRANSITION', 409, `Cannot move from ${from} to ${to}.`, { details: { current_status: from, requested_status: to }, nextStep: hint }),
  catalogUnavailable: (cause: unknown) =>
    new AppError('FILTER_CATALOG_UNAVAILABLE', 502, 'The field catalog could not be read, so filters cannot be validated; nothing was created.', { cause, nextStep: 'Retry shortly.' }),
  noRelease: () =>
    new AppError('DATA_RELEASE_UNAVAILABLE', 503, 'No data release is published yet.', { nextStep: 'Retry shortly; the identity graph is being loaded.' }),
};

export async function loadCatalog(graph: GraphPorts): Promise<FilterCatalog> {
  try {
    return await graph.catalog();
  } catch (error) {
    throw SegmentErrors.catalogUnavailable(error);
  }
}

export function requireRelease(graph: GraphPorts): ReleaseRef {
  const release = graph.currentRelease();
  if (!release) throw SegmentErrors.noRelease();
  return release;
}

/** normalize -> validate against the live catalog; 400 INVALID_FILTER with the issues otherwise. */
export function parseFilters(input: { filters?: unknown; filter_groups?: unknown }, catalog: FilterCatalog): FilterGroup[] {
  const n = normalizeFilterInput(input, catalog);
  const v = n.ok ? validateFilterGroups(n.groups, catalog, { form: n.form }) : n;
  if (!v.ok) {
    throw new AppError('INVALID_FILTER', 400, 'The filters are not valid against the field catalog.', {
      issues: v.issues,
      nextStep: 'Fix the listed issues; GET /v1/catalog/fields lists fields, operators and values.',
    });
  }
  return v.groups;
}

/** Resolves when `p` does, or with undefined after `ms` (p keeps running; its result is then ignored). */
export async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p.then((value) => ({ value }), (error: unknown) => ({ error })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
