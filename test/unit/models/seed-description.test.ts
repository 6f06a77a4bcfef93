/**
 * The seed-description parser: free text -> catalog filter conditions, deterministic, with what it
 * did not understand. Every result must also pass the filter validator against the same catalog.
 */
import { describe, expect, it } from 'vitest';
import { validateFilterGroups } from '../../../src/graph/filters/index.ts';
import { parseSeedDescription, type SeedFilter } from '../../../src/modelling/index.ts';
import { CATALOG_FIELDS } from '../../../src/graph/person-fields.ts';

const parse = (text: string) => parseSeedDescription(text, CATALOG_FIELDS);
const f = (field: string, op: SeedFilter['op'], value: SeedFilter['value']): SeedFilter => ({ field, op, value });

const CASES: Array<[string, SeedFilter[]]> = [
  ['homeowners in California aged 30 to 45', [f('homeowner', '=', true), f('state', '=', 'CA'), f('age', 'BETWEEN', [30, 45])]],
  ['Homeowners, CA, 30-45', [f('homeowner', '=', true), f('state', '=', 'CA'), f('age', 'BETWEEN', [30, 45])]],
  ['people between 30 and 45 years old', [f('age', 'BETWEEN', [30, 45])]],
  ['30 to 45 year olds', [f('age', 'BETWEEN', [30, 45])]],
  ['ages 45-30', [f('age', 'BETWEEN', [30, 45])]],
  ['aged 40', [f('age', '=', 40)]],
  ['over 65', [f('age', '>', 65)]],
  ['65+', [f('age', '>=', 65)]],
  ['35 and older', [f('age', '>=', 35)]],
  ['under 30', [f('age', '<', 30)]],
  ['younger than 25', [f('age', '<', 25)]],
  ['in their 30s', [f('age', 'BETWEEN', [30, 39])]],
  ['people in their forties', [f('age', 'BETWEEN', [40, 49])]],
  ['not over 65', [f('age', '<=', 65)]],
  ['seniors', [f('age', '>=', 65)]],
  ['millennials', [f('age', 'BETWEEN', [30, 45])]],
  ['renters', [f('homeowner', '=', false)]],
  ['non-homeowners', [f('homeowner', '=', false)]],
  ['people who own their home', [f('homeowner', '=', true)]],
  ['parents', [f('presence_of_children', '=', true)]],
  ['households without children', [f('presence_of_children', '=', false)]],
  ['moms', [f('gender', '=', 'F'), f('presence_of_children', '=', true)]],
  ['men', [f('gender', '=', 'M')]],
  ['women in Texas or Florida', [f('gender', '=', 'F'), f('state', 'IN', ['TX', 'FL'])]],
  ['in New York, New Jersey and Connecticut', [f('state', 'IN', ['NY', 'NJ', 'CT'])]],
  ['from ca', [f('state', '=', 'CA')]],
  ['living in north carolina', [f('state', '=', 'NC')]],
  ['excluding California', [f('state', '!=', 'CA')]],
  ['in 94110 or 10001', [f('zip5', 'IN', ['94110', '10001'])]],
  ['married', [f('marital_status', '=', 'married')]],
  ['not married', [f('marital_status', '!=', 'married')]],
  ['single or divorced', [f('marital_status', 'IN', ['single', 'divorced'])]],
  ['widows', [f('marital_status', '=', 'widowed')]],
  ['college graduates', [f('education', 'IN', ['bachelors', 'graduate'])]],
  ['people with some college', [f('education', '=', 'some_college')]],
  ['nurses and teachers', [f('occupation_group', 'IN', ['healthcare', 'education'])]],
  ['retirees', [f('occupation_group', '=', 'retired')]],
  ['tech workers', [f('occupation_group', '=', 'technology')]],
  ['high income', [f('income_band', 'IN', ['150k_250k', '250k_plus'])]],
  ['affluent', [f('income_band', 'IN', ['150k_250k', '250k_plus'])]],
  ['low income renters', [f('income_band', 'IN', ['lt_25k', '25k_50k']), f('homeowner', '=', false)]],
  ['millionaires', [f('net_worth_band', '=', '1m_plus')]],
  ['household income over $100k', [f('household_income', '>', 100000)]],
  ['earning more than 75,000', [f('household_income', '>', 75000)]],
  ['making $50k-$75k', [f('household_income', 'BETWEEN', [50000, 75000])]],
  ['income between 40 thousand and 60 thousand', [f('household_income', 'BETWEEN', [40000, 60000])]],
  ['over $1.5 million', [f('household_income', '>', 1500000)]],
  ['homes worth over 500k', [f('home_value', '>', 500000)]],
  ['households of 4 or more', [f('household_size', '>=', 4)]],
  ['apartment dwellers', [f('dwelling_type', '=', 'multi_family')]],
  ['single family homes', [f('dwelling_type', '=', 'single_family')]],
  ['golfers', [f('interests', 'ARRAY_CONTAINS', 'golf')]],
  ['golf', [f('interests', 'ARRAY_CONTAINS', 'golf')]],
  ['golfers and anglers', [f('interests', 'ARRAY_CONTAINS', 'golf'), f('interests', 'ARRAY_CONTAINS', 'fishing')]],
  ['golfers or anglers', [f('interests', 'ARRAY_CONTAINS_ANY', ['golf', 'fishing'])]],
  ['pet owners', [f('interests', 'ARRAY_CONTAINS_ANY', ['pets_dogs', 'pets_cats'])]],
  ['dog lovers', [f('interests', 'ARRAY_CONTAINS', 'pets_dogs')]],
  ['interested in home decor', [f('interests', 'ARRAY_CONTAINS', 'home_decor')]],
  ['people who like travel international', [f('interests', 'ARRAY_CONTAINS', 'travel_international')]],
  ['online shoppers', [f('purchase_behaviors', 'ARRAY_CONTAINS', 'online_shopper')]],
  ['luxury buyers', [f('purchase_behaviors', 'ARRAY_CONTAINS', 'luxury_buyer')]],
  [
    'bargain hunters who buy organic food',
    [f('purchase_behaviors', 'ARRAY_CONTAINS', 'discount_shopper'), f('purchase_behaviors', 'ARRAY_CONTAINS', 'organic_food')],
  ],
  ['with email', [f('has_email', '=', true)]],
  [
    'high income golfers or anglers in TX, not married',
    [
      f('income_band', 'IN', ['150k_250k', '250k_plus']),
      f('interests', 'ARRAY_CONTAINS_ANY', ['golf', 'fishing']),
      f('state', '=', 'TX'),
      f('marital_status', '!=', 'married'),
    ],
  ],
  [
    'Millennial moms who love yoga and organic food in 94110',
    [
      f('age', 'BETWEEN', [30, 45]),
      f('gender', '=', 'F'),
      f('presence_of_children', '=', true),
      f('interests', 'ARRAY_CONTAINS', 'yoga'),
      f('purchase_behaviors', 'ARRAY_CONTAINS', 'organic_food'),
      f('zip5', '=', '94110'),
    ],
  ],
  [
    'Affluent empty nesters in Florida who golf',
    [
      f('income_band', 'IN', ['150k_250k', '250k_plus']),
      f('presence_of_children', '=', false),
      f('age', '>=', 45),
      f('state', '=', 'FL'),
      f('interests', 'ARRAY_CONTAINS', 'golf'),
    ],
  ],
];

describe('parseSeedDescription', () => {
  it.each(CASES)('%s', (text, expected) => {
    const r = parse(text);
    expect(r.filters).toEqual(expected);
    expect(r.unrecognized).toEqual([]);
    const v = validateFilterGroups([{ id: 'g', combinator: 'AND', filters: r.filters }], CATALOG_FIELDS);
    expect(v.ok ? [] : v.issues).toEqual([]);
  });

  it('reports the words it did not understand, as written', () => {
    const r = parse('Golfers in Austin who drive Teslas');
    expect(r.filters).toEqual([f('interests', 'ARRAY_CONTAINS', 'golf')]);
    expect(r.unrecognized).toEqual(['Austin', 'drive', 'Teslas']);
    expect(r.understood).toEqual([{ text: 'Golfers', field: 'interests', negated: false }]);
  });

  it('does not read English words as state codes, but reads capitals', () => {
    expect(parse('me or my friends in OR').filters).toEqual([f('state', '=', 'OR')]);
    expect(parse('golfers in or near boston').filters).toEqual([f('interests', 'ARRAY_CONTAINS', 'golf')]);
    expect(parse('golfers in or near boston').unrecognized).toEqual(['boston']);
  });

  it('says why an understood phrase was not used', () => {
    const neg = parse('college grads who dont golf');
    expect(neg.filters).toEqual([f('education', 'IN', ['bachelors', 'graduate'])]);
    expect(neg.unrecognized).toEqual(['golf']);
    expect(neg.notes).toEqual(['"golf" was not used: an interest or purchase behaviour can only be required, not excluded.']);
    const both = parse('renters and homeowners');
    expect(both.filters).toEqual([]);
    expect(both.notes).toEqual(['homeowner was asked both ways (true and false); it is not used.']);
  });

  it('only uses fields and values of the catalog it is given', () => {
    const noHome = CATALOG_FIELDS.filter((x) => x.name !== 'homeowner' && x.name !== 'interests');
    const r = parseSeedDescription('homeowners who golf aged 30 to 45', noHome);
    expect(r.filters).toEqual([f('age', 'BETWEEN', [30, 45])]);
    expect(r.unrecognized).toEqual(['homeowners', 'golf']);
  });

  it('is deterministic and ignores case and punctuation', () => {
    const a = parse('HOMEOWNERS; in california!! Aged 30-45.');
    const b = parse('homeowners in California aged 30 to 45');
    expect(a.filters).toEqual(b.filters);
    expect(a.unrecognized).toEqual([]);
    expect(parse('homeowners in California aged 30 to 45')).toEqual(b);
  });
});
