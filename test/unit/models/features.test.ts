/**
 * Feature sources from catalog descriptors, `excluded_columns` parsing, derived feature names and
 * the design matrix's encoding.
 */
import { describe, expect, it } from 'vitest';
import { ModelInputError, featureSources, parseExcludedColumns } from '../../../src/modelling/index.ts';
import { deriveFeatures } from '../../../src/modelling/features/derive.ts';
import { encodeDesign, isActive } from '../../../src/modelling/features/design.ts';
import type { RawSample } from '../../../src/modelling/features/raw.ts';
import { CATALOG_FIELDS } from '../../../src/graph/person-fields.ts';

describe('parseExcludedColumns', () => {
  it('reads the comma-prefixed form, canonical names and aliases, once each', () => {
    expect(parseExcludedColumns(',age,income_band', CATALOG_FIELDS)).toEqual(['age', 'income_band']);
    expect(parseExcludedColumns(' , Age , zip,age,, ', CATALOG_FIELDS)).toEqual(['age', 'zip5']);
    expect(parseExcludedColumns('', CATALOG_FIELDS)).toEqual([]);
    expect(parseExcludedColumns(',', CATALOG_FIELDS)).toEqual([]);
    expect(parseExcludedColumns(null, CATALOG_FIELDS)).toEqual([]);
  });

  it('names every unknown column, with suggestions', () => {
    let err: unknown;
    try {
      parseExcludedColumns(',agee,income_band,shoe_size', CATALOG_FIELDS);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelInputError);
    const e = err as ModelInputError;
    expect(e.code).toBe('INVALID_EXCLUDED_COLUMNS');
    expect(e.columns).toEqual(['agee', 'shoe_size']);
    expect(e.suggestions.agee).toContain('age');
    expect(e.message).toContain('agee (did you mean age');
    expect(e.message).toContain('shoe_size');
  });

  it('refuses a list without the leading comma', () => {
    expect(() => parseExcludedColumns('age,income_band', CATALOG_FIELDS)).toThrow(/must start with a comma/);
  });
});

describe('featureSources', () => {
  it('takes the non-PII feature_store fields, each with its encoding', () => {
    const s = featureSources(CATALOG_FIELDS);
    expect(s.map((x) => `${x.field}:${x.kind}`)).toEqual([
      'state:category',
      'zip3:category',
      'gender:category',
      'age:numeric',
      'moved_in:numeric',
      'length_of_residence:numeric',
      'household_size:numeric',
      'presence_of_children:boolean',
      'dwelling_type:category',
      'homeowner:boolean',
      'home_value:numeric',
      'household_income:numeric',
      'income_band:category',
      'net_worth_band:category',
      'education:category',
      'marital_status:category',
      'occupation_group:category',
      'has_email:boolean',
      'has_phone:boolean',
      'interests:bitmask',
      'purchase_behaviors:bitmask',
    ]);
    expect(s.find((x) => x.field === 'state')).toMatchObject({ vocabulary: null });
    expect(s.find((x) => x.field === 'moved_in')).toMatchObject({ type: 'DATE' });
    expect(s.find((x) => x.field === 'interests')).toMatchObject({ column: 'interests_mask' });
  });

  it('never takes PII, even with the tag rule off, and drops excluded fields', () => {
    const all = featureSources(CATALOG_FIELDS, { featureTag: null, excluded: ['age', 'interests'] }).map((x) => x.field);
    for (const pii of CATALOG_FIELDS.filter((f) => f.pii)) expect(all).not.toContain(pii.name);
    expect(all).toContain('city');
    expect(all).not.toContain('age');
    expect(all).not.toContain('interests');
  });
});

/** A hand-made sample: 40 train rows, 4 validation rows. */
function sample(): RawSample {
  const n = 44;
  const part = Uint8Array.from({ length: n }, (_, i) => (i >= 40 ? 1 : 0));
  const y = Uint8Array.from({ length: n }, (_, i) => i % 2);
  return {
    n,
    part,
    y,
    columns: new Map<string, any>([
      ['age', { kind: 'numeric', values: Float64Array.from({ length: n }, (_, i) => (i % 4 === 0 ? NaN : 20 + i)) }],
      ['homeowner', { kind: 'boolean', values: Int8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0)) }],
      [
        'income_band',
        { kind: 'category', values: Array.from({ length: n }, (_, i) => (i < 20 ? 'lt_25k' : i < 38 ? '250k_plus' : '50k_75k')) },
      ],
      // Bit 1 set on every third row, bit 33 (high half) on even rows.
      [
        'interests',
        {
          kind: 'bitmask',
          lo: Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 2 : 0)),
          hi: Float64Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 2 : 0)),
        },
      ],
    ]),
  };
}

describe('deriveFeatures and encodeDesign', () => {
  const sources = featureSources(CATALOG_FIELDS).filter((s) => ['age', 'homeowner', 'income_band', 'interests'].includes(s.field));
  const raw = sample();
  const features = deriveFeatures(sources, raw, { topK: 16, minCount: 5 });

  it('names features in catalog terms, numeric first, rare values left out', () => {
    const vocab = (CATALOG_FIELDS.find((f) => f.name === 'interests')!.storage as { values: readonly string[] }).values;
    expect(features.map((f) => f.name)).toEqual([
      'age',
      'age:missing',
      'homeowner',
      'income_band=lt_25k',
      'income_band=250k_plus',
      `interests=${vocab[1]}`,
      `interests=${vocab[33]}`,
    ]);
    const age = features[0]!;
    expect(age).toMatchObject({ kind: 'numeric', type: 'INTEGER' });
  });

  it('encodes indicators as sorted active lists with the scoring NULL rules', () => {
    const rows = Array.from({ length: 40 }, (_, i) => i);
    const d = encodeDesign(features, raw, rows, new Float64Array(44).fill(1));
    expect(d.q).toBe(1);
    expect(d.p).toBe(7);
    expect(Number.isNaN(d.numeric[0]![0]!)).toBe(true);
    // Row 0: age NULL, homeowner, lt_25k, bit 1, bit 33.
    expect([1, 2, 3, 4, 5, 6].filter((j) => isActive(d, 0, j))).toEqual([1, 2, 3, 5, 6]);
    // Row 23: age 43, not homeowner, 250k_plus, no bit 1, no bit 33.
    expect([1, 2, 3, 4, 5, 6].filter((j) => isActive(d, 23, j))).toEqual([4]);
  });
});
