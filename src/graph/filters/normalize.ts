/**
 * Turns the two request forms (`filters` flat array, `filter_groups`) into one list of groups, and
 * rewrites field aliases to canonical names so saved filters always use canonical names (spec §2:
 * `zip`, `zip_code`, `postal_code` are saved as `zip5`).
 *
 * Works on untrusted JSON: anything malformed is passed through untouched so that
 * validateFilterGroups can report it with a precise path.
 */
import { createHash } from 'node:crypto';
import { indexCatalog, type FilterCatalog } from './catalog-index.ts';
import type { FilterInputForm, FilterIssue } from './types.ts';

export interface FilterInput {
  filters?: unknown;
  filter_groups?: unknown;
}

export type NormalizedFilterInput = { ok: true; form: FilterInputForm; groups: unknown } | { ok: false; issues: FilterIssue[] };

export function normalizeFilterInput(input: FilterInput, catalog?: FilterCatalog): NormalizedFilterInput {
  const hasFlat = input.filters !== undefined;
  const hasGroups = input.filter_groups !== undefined;
  if (hasFlat && hasGroups) {
    return {
      ok: false,
      issues: [
        {
          path: '$',
          code: 'INVALID_FILTER_SHAPE',
          message: 'Send either `filters` (one AND group) or `filter_groups`, not both.',
          suggestions: ['filters', 'filter_groups'],
        },
      ],
    };
  }
  const resolve = catalog ? canonicalizer(catalog) : (c: unknown) => c;
  if (hasFlat) {
    const filters = Array.isArray(input.filters) ? input.filters.map(resolve) : input.filters;
    return { ok: true, form: 'filters', groups: [{ id: flatGroupId(filters), filters, combinator: 'AND' }] };
  }
  // Neither form present yields an empty list; the validator rejects it, callers that treat "no
  // filter" as "everyone" can check for it first.
  const raw = hasGroups ? input.filter_groups : [];
  const groups = Array.isArray(raw)
    ? raw.map((g) => (isObject(g) && Array.isArray(g.filters) ? { ...g, filters: g.filters.map(resolve) } : g))
    : raw;
  return { ok: true, form: 'filter_groups', groups };
}

/**
 * A deterministic NanoID-shaped id (21 url-safe chars) derived from the group's content: the same
 * flat filters always get the same id, so re-saving a segment does not churn group ids.
 */
export function flatGroupId(filters: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(filters) ?? 'undefined')
    .digest('base64url')
    .slice(0, 21);
}

function canonicalizer(catalog: FilterCatalog): (c: unknown) => unknown {
  const index = indexCatalog(catalog);
  return (c) => {
    if (!isObject(c) || typeof c.field !== 'string') return c;
    const canonical = index.canonicalOf(c.field);
    return canonical && canonical !== c.field ? { ...c, field: canonical } : c;
  };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
