/**
 * What the privacy layer shows for a true count, under the fixed test secret (test/helpers/app.ts).
 * HTTP tests compute the true count with an independent oracle (TypeScript predicates over the rows)
 * and compare the answer with this exactly, so an off-by-one in the SQL still fails. The noise itself
 * is pinned to fixed values in test/unit/privacy.test.ts.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { normalizeFilterInput, validateFilterGroups } from '../../src/graph/filters/index.ts';
import type { MembershipQuery } from '../../src/graph/membership/types.ts';
import {
  createPrivacyWithSecret,
  hex,
  questionOf,
  setLayers,
  xorHex,
  type Bucket,
  type MeasuredBucket,
  type SetCount,
} from '../../src/modules/privacy/index.ts';

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

/**
 * The set of persons with these keys, as the warehouse hashes it (`bit_xor(hash(person_key))`, computed
 * by DuckDB itself so the test does not re-implement the hash).
 */
export async function setOf(keys: Iterable<bigint | number>): Promise<SetCount> {
  const list = [...keys].map((k) => BigInt(k));
  if (list.length === 0) return { n: 0, h: '0' };
  duck ??= DuckDBInstance.create(':memory:', { threads: '1' }).then((i) => i.connect());
  const r = await (await duck).runAndReadAll(`SELECT bit_xor(hash(k)) AS h FROM (SELECT unnest([${list.join(',')}]::BIGINT[]) AS k)`);
  return { n: list.length, h: hex((r.getRowObjectsJS()[0] as { h: bigint }).h) };
}
let duck: Promise<Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>> | undefined;

/**
 * What the privacy layer shows for the persons `members` selected by the question (raw filters or a
 * query) when none of its conditions is of low effect (docs/decisions/052): seeded by their set.
 */
export async function shownSet(
  input: { filters?: unknown; filter_groups?: unknown } | MembershipQuery,
  members: Iterable<bigint | number> | SetCount,
  facet?: string,
): Promise<number | null> {
  const query = 'kind' in input ? input : filtersQuery(input);
  const set = 'h' in members ? (members as SetCount) : await setOf(members as Iterable<bigint>);
  return testPrivacy.protectSet({ set: { ...set, layers: setLayers(query) }, ...(facet ? { facet } : {}) }).count;
}

/** The groups shown for a dimension: buckets of member keys, measured by set. */
export async function shownSetGroups(
  input: { filters?: unknown; filter_groups?: unknown },
  dimension: string,
  truth: Map<unknown, Iterable<bigint>>,
  top?: number,
) {
  const layers = setLayers(filtersQuery(input));
  const buckets: MeasuredBucket[] = [];
  for (const [value, keys] of truth) {
    const set = await setOf(keys);
    buckets.push({
      dimension,
      group_value: value as Bucket['group_value'],
      set: { ...set, matched: null, layers: [...layers, `v:${dimension}|${JSON.stringify(value)}`] },
    });
  }
  return testPrivacy.protectMeasuredGroups(buckets, top);
}
export { xorHex };

/** The count shown for raw filters whose true count is `trueCount` (null: suppressed), by the question's wording (model workflow figures). */
export function shownCount(
  input: { filters?: unknown; filter_groups?: unknown } | MembershipQuery,
  trueCount: number,
  facet?: string,
): number | null {
  const query = 'kind' in input ? input : filtersQuery(input);
  return testPrivacy.protectCount({ question: questionOf(query), trueCount, ...(facet ? { facet } : {}) }).count;
}

/** The groups shown for a dimension of raw filters, from the true buckets. */
export function shownGroups(
  input: { filters?: unknown; filter_groups?: unknown },
  dimension: string,
  truth: Map<unknown, number>,
  top?: number,
) {
  const buckets: Bucket[] = [...truth].map(([group_value, count]) => ({ group_value: group_value as Bucket['group_value'], count }));
  return testPrivacy.protectGroups({
    question: questionOf(filtersQuery(input)),
    dimension,
    buckets,
    ...(top !== undefined ? { top } : {}),
  });
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
