/**
 * What the privacy layer shows for a true count, under the fixed test secret (test/helpers/app.ts).
 * HTTP tests compute the true count with an independent oracle (TypeScript predicates over the rows)
 * and compare the answer with this exactly, so an off-by-one in the SQL still fails. The noise itself
 * is pinned to fixed values in test/unit/privacy.test.ts.
 */
import { CATALOG_FIELDS } from '../../src/graph/catalog-fields.ts';
import { normalizeFilterInput, validateFilterGroups } from '../../src/graph/filters/index.ts';
import type { MembershipQuery } from '../../src/graph/membership/types.ts';
import { createPrivacyWithSecret, questionOf, type Bucket } from '../../src/modules/privacy/index.ts';

export const TEST_NOISE_SECRET = 'test-privacy-noise';
export const testPrivacy = createPrivacyWithSecret({ secret: TEST_NOISE_SECRET, floor: 50, lookupK: 10 });

/** The validated query of a raw `filters` / `filter_groups` body, as discovery builds it. */
export function filtersQuery(input: { filters?: unknown; filter_groups?: unknown }): MembershipQuery {
  const n = normalizeFilterInput(input, CATALOG_FIELDS);
  if (!n.ok) throw new Error(JSON.stringify(n.issues));
  const v = validateFilterGroups(n.groups, CATALOG_FIELDS, { form: n.form });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return { kind: 'filters', groups: v.groups };
}

/** The count shown for raw filters whose true count is `trueCount` (null: suppressed). */
export function shownCount(input: { filters?: unknown; filter_groups?: unknown } | MembershipQuery, trueCount: number, facet?: string): number | null {
  const query = 'kind' in input ? input : filtersQuery(input);
  return testPrivacy.protectCount({ question: questionOf(query), trueCount, ...(facet ? { facet } : {}) }).count;
}

/** The groups shown for a dimension of raw filters, from the true buckets. */
export function shownGroups(input: { filters?: unknown; filter_groups?: unknown }, dimension: string, truth: Map<unknown, number>, top?: number) {
  const buckets: Bucket[] = [...truth].map(([group_value, count]) => ({ group_value: group_value as Bucket['group_value'], count }));
  return testPrivacy.protectGroups({ question: questionOf(filtersQuery(input)), dimension, buckets, ...(top !== undefined ? { top } : {}) });
}

/**
 * A matcher for a count shown through the privacy layer when its exact noise is not derived here
 * (compositions of saved segments): at or above the floor and within `tolerance` of the true count.
 */
export function near(trueCount: number, tolerance = 30) {
  return {
    asymmetricMatch: (v: unknown) => typeof v === 'number' && v >= 50 && Math.abs(v - trueCount) <= tolerance,
    toString: () => `near(${trueCount} ± ${tolerance})`,
    toAsymmetricMatcher: () => `near(${trueCount} ± ${tolerance})`,
  };
}
