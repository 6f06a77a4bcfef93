/** Rules shared by segments and audiences: expiry, shown counts, visibility, releases, filters. */
import { DomainError } from '../../../core/errors.ts';
import type { Viewer } from '../../../core/caller.ts';
import type { FilterCatalog, FilterGroup } from '../../../graph/index.ts';
import { assertFilterBounds, normalizeFilterInput, validateFilterGroups } from '../../../graph/index.ts';
import { DAY, HOUR } from '../../../lib/clock.ts';
import { SegmentErrors } from './errors.ts';
import type { GraphPorts, ReleaseRef } from './ports.ts';

export const EXPIRY_DAYS = 90;
export const DEFAULT_EPHEMERAL_TTL_HOURS = 24;

export const persistentExpiry = (now: Date) => new Date(now.getTime() + EXPIRY_DAYS * DAY);
/** Hour-granular: the TTL counts whole hours from the start of the current hour, rounded up. */
export const ephemeralExpiry = (now: Date, hours: number) => new Date(Math.ceil(now.getTime() / HOUR) * HOUR + hours * HOUR);

export type CountReason = 'below_privacy_floor' | 'counting' | 'not_counted' | 'count_failed';
export interface ShownCount {
  record_count: number | null;
  record_count_reason: CountReason | null;
}

/** A graph-derived count as shown to a customer: below the privacy floor it is null with a reason. */
export function floorCount(n: number, floor: number): ShownCount {
  return n < floor ? { record_count: null, record_count_reason: 'below_privacy_floor' } : { record_count: n, record_count_reason: null };
}

export const visibleTo = (row: { visibility: string; created_by: string }, viewer: Viewer) =>
  row.visibility === 'org' || row.created_by === viewer.userId;

export const sameRelease = (a: ReleaseRef, b: { release_major: number; release_minor: number }) =>
  a.major === b.release_major && a.minor === b.release_minor;

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
  assertFilterBounds(input);
  const n = normalizeFilterInput(input, catalog);
  const v = n.ok ? validateFilterGroups(n.groups, catalog, { form: n.form }) : n;
  if (!v.ok) {
    throw new DomainError('INVALID_FILTER', 'The filters are not valid against the field catalog.', {
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
    return await Promise.race([
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
