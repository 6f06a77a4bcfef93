/**
 * Rephrasings of one set name the same noise layers (decision 015, "averaging by rephrasing"): the
 * canonical form of conditions (src/modules/privacy/canonical.ts), with fixed expected layer names and,
 * under a fixed secret, fixed shown counts.
 */
import { describe, expect, it } from 'vitest';
import type { FilterCondition, FilterGroup } from '../../../src/graph/filters/index.ts';
import type { MembershipQuery } from '../../../src/graph/membership/types.ts';
import { canonicalBranch, createPrivacyWithSecret, questionOf } from '../../../src/modules/privacy/index.ts';

const privacy = createPrivacyWithSecret({ secret: 'unit-secret', floor: 50, lookupK: 10 });
const c = (field: string, op: FilterCondition['op'], value?: unknown, extra: Partial<FilterCondition> = {}): FilterCondition => ({
  field,
  op,
  ...(value === undefined ? {} : { value: value as FilterCondition['value'] }),
  ...extra,
});
const and = (...filters: FilterCondition[]): MembershipQuery => ({ kind: 'filters', groups: [{ id: 'g', filters, combinator: 'AND' }] });
const shown = (q: MembershipQuery, n: number) => privacy.protectCount({ question: questionOf(q), trueCount: n }).count;

/** Every phrasing in a list must give the same key, layers and shown count as the first. */
function sameQuestion(phrasings: MembershipQuery[], layers: string[]) {
  const [first, ...rest] = phrasings.map((q) => questionOf(q));
  expect(first!.layers.filter((l) => l.startsWith('c:'))).toEqual(layers);
  for (const q of rest) {
    expect(q.key).toBe(first!.key);
    expect(q.layers).toEqual(first!.layers);
  }
  const counts = new Set(phrasings.map((q) => shown(q, 1234)));
  expect(counts.size).toBe(1);
}

describe('canonical conditions: equivalent phrasings name the same layers', () => {
  it('strict and inclusive bounds on an INTEGER field, and redundant bounds', () => {
    sameQuestion(
      [
        and(c('age', '>=', 96)),
        and(c('age', '>', 95)),
        and(c('age', '>', 95.5)),
        and(c('age', '>=', 95.2)),
        and(c('age', '>', 95), c('age', '>=', 90)),
      ],
      ['c:["age",">=",96,"exact",false]'],
    );
  });

  it('BETWEEN is the two bounds; a one-value range is =; a one-value IN is =', () => {
    sameQuestion(
      [and(c('age', 'BETWEEN', [30, 39])), and(c('age', '>=', 30), c('age', '<=', 39)), and(c('age', '>', 29), c('age', '<', 40))],
      ['c:["age","RANGE",[30,true,39,true],"exact",false]'],
    );
    sameQuestion(
      [and(c('age', '=', 33)), and(c('age', 'BETWEEN', [33, 33])), and(c('age', 'IN', [33])), and(c('age', '>', 32), c('age', '<', 34))],
      ['c:["age","=",33,"exact",false]'],
    );
  });

  it('IN lists reordered or duplicated; NOT IN of one value is !=', () => {
    sameQuestion(
      [and(c('state', 'IN', ['TX', 'CA', 'NY'])), and(c('state', 'IN', ['NY', 'TX', 'CA', 'TX']))],
      ['c:["state","IN",["CA","NY","TX"],"exact",false]'],
    );
    sameQuestion([and(c('state', '!=', 'CA')), and(c('state', 'NOT IN', ['CA', 'CA']))], ['c:["state","!=","CA","exact",false]']);
  });

  it('case variants of text stored in upper case are the exact upper-case comparison', () => {
    sameQuestion(
      [
        and(c('city', '=', 'CHICAGO')),
        and(c('city', '=', 'chicago', { text_comparison: 'case_insensitive' })),
        and(c('city', 'IN', ['Chicago'], { text_comparison: 'case_insensitive' })),
      ],
      ['c:["city","=","CHICAGO","exact",false]'],
    );
  });

  it('BOOLEAN: != false, NOT IN [false] and IN [true] are = true; text options do not matter for numbers', () => {
    sameQuestion(
      [
        and(c('homeowner', '=', true)),
        and(c('homeowner', '!=', false)),
        and(c('homeowner', 'NOT IN', [false])),
        and(c('homeowner', 'IN', [true])),
      ],
      ['c:["homeowner","=",true,"exact",false]'],
    );
    sameQuestion(
      [and(c('age', '=', 40)), and(c('age', '=', 40, { trim_whitespace: true, text_comparison: 'case_insensitive' }))],
      ['c:["age","=",40,"exact",false]'],
    );
  });

  it('DATE bounds by whole days', () => {
    sameQuestion(
      [and(c('moved_in', '>', '2020-12-31')), and(c('moved_in', '>=', '2021-01-01'))],
      ['c:["moved_in",">=","2021-01-01","exact",false]'],
    );
  });

  it('different sets stay different questions, and fixed shown counts', () => {
    expect(questionOf(and(c('age', '>', 95))).key).not.toBe(questionOf(and(c('age', '>=', 95))).key);
    // NUMBER fields are not discrete: > 95 is not >= 96.
    expect(canonicalBranch([c('lat', '>', 40)])).toEqual(['["lat",">",40,"exact",false]']);
    expect(canonicalBranch([c('lat', '>', 40), c('lat', '>=', 40)])).toEqual(['["lat",">",40,"exact",false]']);
    expect(shown(and(c('age', '>', 95)), 1000)).toBe(EXPECTED_AGE_96);
  });
});

/** Pinned under the unit secret: the one-layer condition age >= 96 plus its question layer. */
const EXPECTED_AGE_96 = 1003;
