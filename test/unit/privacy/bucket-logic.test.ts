/**
 * The bucket's logic (src/modules/privacy/bucket-logic.ts): a condition's truth over every person of a
 * bucket, and the reduced question, under the compiler's SQL semantics (NULL never compares true).
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../../src/graph/person-fields.ts';
import type { FilterCondition } from '../../../src/graph/filters/index.ts';
import { bucketFact, reducedKey, truthIn, type BucketFact, type Truth } from '../../../src/modules/privacy/bucket-logic.ts';
import { branchTruths, type LocationFacts } from '../../../src/modules/privacy/location-facts.ts';

const c = (
  field: string,
  op: FilterCondition['op'],
  value?: FilterCondition['value'],
  extra: Partial<FilterCondition> = {},
): FilterCondition => ({ field, op, ...(value === undefined ? {} : { value }), ...extra });
const truth = (dimension: string, value: unknown, cond: FilterCondition, groupBy?: string) =>
  truthIn(CATALOG_FIELDS, bucketFact(dimension, value, groupBy))(cond);

describe('conditionTruth over a bucket', () => {
  it('decides conditions on the bucket field by its value', () => {
    expect(truth('state', 'TX', c('state', '=', 'TX'))).toBe('true');
    expect(truth('state', 'TX', c('state', '=', 'CA'))).toBe('false');
    expect(truth('state', 'TX', c('state', 'IN', ['CA', 'TX']))).toBe('true');
    expect(truth('state', 'TX', c('state', 'NOT IN', ['CA', 'TX']))).toBe('false');
    expect(truth('state', 'TX', c('state', '!=', 'CA'))).toBe('true');
    // Case-insensitive ASCII compares folded; case-sensitive does not.
    expect(truth('state', 'TX', c('state', '=', 'tx', { text_comparison: 'case_insensitive' }))).toBe('true');
    expect(truth('state', 'TX', c('state', '=', 'tx'))).toBe('false');
  });

  it('leaves undecided what it cannot be sure of', () => {
    expect(truth('state', 'TX', c('city', '=', 'HOUSTON'))).toBe('unknown');
    expect(truth('state', 'TX', c('state', '=', ' TX', { trim_whitespace: true }))).toBe('unknown');
    expect(truth('state', 'TX', c('state', 'LIKE', 'T%'))).toBe('unknown');
    expect(truth('state', 'TX', c('state', '<', 'UT'))).toBe('unknown');
    expect(truth('nope', 'TX', c('state', '=', 'TX'))).toBe('unknown');
  });

  it('a NULL bucket satisfies only IS NULL', () => {
    expect(truth('state', null, c('state', 'IS NULL'))).toBe('true');
    expect(truth('state', null, c('state', 'IS NOT NULL'))).toBe('false');
    expect(truth('state', null, c('state', '!=', 'CA'))).toBe('false');
    expect(truth('state', null, c('state', 'NOT IN', ['CA']))).toBe('false');
    expect(truth('age_band', null, c('age', '<', 200))).toBe('false');
    expect(truth('age_band', null, c('age', 'IS NULL'))).toBe('true');
  });

  it('an age band decides ranges that contain it or miss it', () => {
    expect(truth('age_band', '25_34', c('age', 'BETWEEN', [25, 44]))).toBe('true');
    expect(truth('age_band', '25_34', c('age', 'BETWEEN', [30, 44]))).toBe('unknown');
    expect(truth('age_band', '25_34', c('age', 'BETWEEN', [35, 44]))).toBe('false');
    expect(truth('age_band', '25_34', c('age', '>=', 25))).toBe('true');
    expect(truth('age_band', '25_34', c('age', '>', 34))).toBe('false');
    expect(truth('age_band', '25_34', c('age', '<', 35))).toBe('true');
    expect(truth('age_band', '65_plus', c('age', '>=', 65))).toBe('true');
    expect(truth('age_band', 'under_18', c('age', '<=', 17))).toBe('true');
    expect(truth('age_band', '25_34', c('age', '=', 30))).toBe('unknown');
    expect(truth('age_band', '25_34', c('age', '=', 40))).toBe('false');
    expect(truth('age_band', '25_34', c('age', 'NOT IN', [50, 60]))).toBe('true');
    expect(truth('age_band', '25_34', c('age', 'IN', [50, 60]))).toBe('false');
    expect(truth('age_band', '25_34', c('age', 'IS NOT NULL'))).toBe('true');
  });

  it('a group_by bucket is a value of its field, numbers compared as numbers', () => {
    expect(truth('age', 40n, c('age', 'BETWEEN', [35, 44]), 'age')).toBe('true');
    expect(truth('age', 40, c('age', '<', 40), 'age')).toBe('false');
    // CAST(40.5 AS BIGINT) rounds in DuckDB: not decided here.
    expect(truth('age', 40, c('age', '<', 40.5), 'age')).toBe('unknown');
  });
});

describe('reducedKey', () => {
  const t = truthIn(CATALOG_FIELDS, bucketFact('state', 'TX'));
  const none = truthIn(CATALOG_FIELDS, null);
  it('drops true conditions and false branches, absorbs branches that contain another', () => {
    const q = [
      [c('state', '=', 'TX'), c('age', '>=', 30)],
      [c('state', '=', 'CA'), c('gender', '=', 'F')],
    ];
    expect(reducedKey(q, t)).toBe(reducedKey([[c('age', '>=', 30)]], t));
    expect(reducedKey(q, none)).not.toBe(reducedKey([[c('age', '>=', 30)]], none));
    const p = [c('state', '=', 'CA'), c('age', '>=', 30)];
    expect(reducedKey([p, [...p, c('zip5', '=', '90210')]], none)).toBe(reducedKey([p], none));
    expect(reducedKey([[c('state', '=', 'TX')]], t)).toBe('everyone');
    expect(reducedKey([[c('state', '=', 'CA')]], t)).toBe('[]');
  });
});

describe('location facts: what a branch implies of its own location conditions', () => {
  const facts: LocationFacts = {
    fields: ['zip5', 'city', 'state'],
    rows: [
      ['90001', 'LOS ANGELES', 'CA'],
      ['92101', 'SAN DIEGO', 'CA'],
      ['75001', 'ADDISON', 'TX'],
      ['75001', 'DALLAS', 'TX'],
      ['75002', 'DALLAS', 'TX'],
      ['10001', 'NEW YORK', 'NY'],
      ['97201', 'PORTLAND', 'OR'],
      ['04101', 'PORTLAND', 'ME'],
      ['00000', null, null],
    ],
  };
  const implied = branchTruths(CATALOG_FIELDS, facts);
  const truths = (branch: FilterCondition[], fact: BucketFact | null = null) =>
    implied(fact, branch, branch.map(truthIn(CATALOG_FIELDS, fact)));

  it('a state implied by the cities or the ZIP beside it is true; one they rule out is false', () => {
    expect(truths([c('state', '=', 'CA'), c('city', 'IN', ['LOS ANGELES', 'SAN DIEGO'])])).toEqual(['true', 'unknown']);
    expect(truths([c('state', '=', 'CA'), c('city', '=', 'PORTLAND')])).toEqual(['false', 'unknown']);
    // PORTLAND is in OR and ME; the only city of OR here is PORTLAND: the state leaves the city implied.
    expect(truths([c('state', '=', 'OR'), c('city', '=', 'PORTLAND')])).toEqual(['unknown', 'true']);
    expect(truths([c('state', 'IN', ['OR', 'ME', 'TX']), c('city', '=', 'PORTLAND')])).toEqual(['true', 'unknown']);
    expect(truths([c('zip5', '=', '75001'), c('state', '=', 'TX'), c('city', '=', 'DALLAS')])).toEqual(['unknown', 'true', 'unknown']);
    expect(truths([c('state', '!=', 'TX'), c('city', '=', 'los angeles', { text_comparison: 'case_insensitive' })])).toEqual([
      'true',
      'unknown',
    ]);
    // The ZIP whose state is NULL: no person of it has a state, so the branch selects nobody.
    expect(truths([c('zip5', '=', '00000'), c('state', 'IS NOT NULL')])).toEqual(['false', 'unknown']);
    expect(truths([c('zip5', '=', '00000'), c('state', '!=', 'CA')])).toEqual(['false', 'unknown']);
  });

  it('two conditions that imply each other: only one is removed, the one kept implies it', () => {
    expect(truths([c('state', '=', 'NY'), c('city', '=', 'NEW YORK')])).toEqual(['true', 'unknown']);
  });

  it('what it cannot be sure of constrains nothing', () => {
    expect(truths([c('state', '=', 'CA'), c('city', '=', ' LOS ANGELES ', { trim_whitespace: true })])).toEqual(['unknown', 'unknown']);
    expect(truths([c('state', '=', 'CA'), c('city', 'LIKE', 'LOS%')])).toEqual(['unknown', 'unknown']);
    expect(truths([c('state', '=', 'CA'), c('age', '>=', 30)])).toEqual(['unknown', 'unknown']);
  });

  it('the bucket is one more constraint; the reduced question follows', () => {
    expect(truths([c('city', '=', 'PORTLAND'), c('age', '>=', 30)], bucketFact('state', 'TX'))).toEqual(['false', 'unknown']);
    expect(truths([c('city', '=', 'DALLAS')], bucketFact('state', 'TX'))).toEqual(['unknown']);
    const none = truthIn(CATALOG_FIELDS, null);
    const sharpen = (b: readonly FilterCondition[], t: Truth[]) => implied(null, b, t);
    const la = c('city', 'IN', ['LOS ANGELES', 'SAN DIEGO']);
    expect(reducedKey([[c('state', '=', 'CA'), la]], none, sharpen)).toBe(reducedKey([[la]], none, sharpen));
    expect(reducedKey([[c('state', '=', 'CA'), la]], none)).not.toBe(reducedKey([[la]], none));
  });
});
