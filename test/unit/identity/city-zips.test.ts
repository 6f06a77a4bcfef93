import { describe, expect, it } from 'vitest';
import { CITY_FUZZY_MIN, cityZip5s } from '../../../src/identity/normalize/address/city-zips.ts';
import { jaroWinkler } from '../../../src/identity/matcher/compare.ts';
import { normalizeMatchInput, localityZips } from '../../../src/identity/normalize/record.ts';
import { rowKeySources, KIND } from '../../../src/identity/matcher/keys.ts';

describe("cityZip5s: a city and state without a ZIP -> the city's ZIP5s (zips.csv)", () => {
  it('reads a known city exactly, in ZIP order', () => {
    expect(cityZip5s('BOZEMAN', 'MT')).toEqual(['59715', '59718']);
    expect(cityZip5s('EL PASO', 'TX')).toHaveLength(23);
  });

  it('reads a misspelled city as the one city of its state that close, and nothing when none or several are', () => {
    expect(jaroWinkler('BOZMAN', 'BOZEMAN')).toBeGreaterThanOrEqual(CITY_FUZZY_MIN);
    expect(cityZip5s('BOZMAN', 'MT')).toEqual(['59715', '59718']);
    expect(cityZip5s('BOZEMAN', 'WY')).toEqual([]); // another state's city
    expect(cityZip5s('ZQXWV', 'MT')).toEqual([]);
    expect(cityZip5s('VOZEMAN', 'MT')).toEqual([]); // only cities with the same first letter are compared
    expect(cityZip5s('BOZEMAN', null)).toEqual([]);
    expect(cityZip5s(null, 'MT')).toEqual([]);
    expect(cityZip5s('BOZEMAN', 'XX')).toEqual([]);
  });
});

describe('a record without a ZIP gets its city as its locality', () => {
  it("a street address with city and state: the city's ZIPs and the street keyed in each", () => {
    const r = normalizeMatchInput({ first_name: 'Ann', last_name: 'Lee', address_1: '12 Main Street', city: 'bozeman', state: 'Montana' });
    expect(r.cityZip5s).toEqual(['59715', '59718']);
    expect(r.cityAddressKeys).toEqual([
      { key: '12|MAIN|59715', unit: null },
      { key: '12|MAIN|59718', unit: null },
    ]);
    expect(localityZips(r)).toEqual(['59715', '59718']);
    const keys = rowKeySources(r);
    expect(keys.filter((k) => k.kind === KIND.address).map((k) => k.s)).toEqual(['a:12|MAIN|59715', 'a:12|MAIN|59718']);
    // name + ZIP blocks in each ZIP of the city, both names; no spatial street keys (a ZIP the row did not give)
    expect(keys.filter((k) => k.kind === KIND.nameZip).map((k) => k.s)).toEqual([
      'n:LEE|59715',
      'n:ANN|59715',
      'n:LEE|59718',
      'n:ANN|59718',
    ]);
    expect(keys.some((k) => k.kind === KIND.street)).toBe(false);
  });

  it("a city and state without a street: the city's ZIPs, no address keys", () => {
    const r = normalizeMatchInput({ first_name: 'Ann', last_name: 'Lee', city: 'Saint Louis', state: 'MO' });
    expect(r.cityZip5s[0]).toBe('63101');
    expect(r.cityAddressKeys).toEqual([]);
    // a city of more than CITY_NAME_BLOCK_MAX_ZIPS ZIPs: no name + ZIP blocks (too common), the locality stays
    expect(rowKeySources(r).filter((k) => k.kind === KIND.nameZip)).toEqual([]);
    expect(localityZips(r)).toHaveLength(r.cityZip5s.length);
  });

  it("a record whose ZIP is its city's keeps its ZIP alone; an unknown city adds nothing", () => {
    const withZip = normalizeMatchInput({
      first_name: 'Ann',
      last_name: 'Lee',
      address_1: '12 Main St',
      city: 'Bozeman',
      state: 'MT',
      zip: '59718',
    });
    expect([withZip.cityZip5s, withZip.cityAddressKeys, localityZips(withZip)]).toEqual([[], [], ['59718']]);
    const zipOnly = normalizeMatchInput({ first_name: 'Ann', last_name: 'Lee', zip: '59718' });
    expect(localityZips(zipOnly)).toEqual(['59718']);
    const unknown = normalizeMatchInput({
      first_name: 'Ann',
      last_name: 'Lee',
      address_1: '12 Main St',
      city: 'Nowhereville',
      state: 'MT',
    });
    expect([unknown.cityZip5s, unknown.cityAddressKeys]).toEqual([[], []]);
  });

  it("a ZIP that is not its city's (a mistyped ZIP) adds the city's ZIPs after its own, the street keyed in them too", () => {
    const r = normalizeMatchInput({
      first_name: 'Ann',
      last_name: 'Lee',
      address_1: '12 Main St',
      city: 'Bozeman',
      state: 'MT',
      zip: '59714',
    });
    expect(r.cityZip5s).toEqual(['59715', '59718']);
    expect(r.cityAddressKeys).toEqual([
      { key: '12|MAIN|59715', unit: null },
      { key: '12|MAIN|59718', unit: null },
    ]);
    expect(localityZips(r)).toEqual(['59714', '59715', '59718']);
    expect(
      rowKeySources(r)
        .filter((k) => k.kind === KIND.address)
        .map((k) => k.s),
    ).toEqual(['a:12|MAIN|59714', 'a:12|MAIN|59715', 'a:12|MAIN|59718']);
    // the spatial street keys stay in the ZIP the row gave
    expect(
      rowKeySources(r)
        .filter((k) => k.kind === KIND.street)
        .map((k) => k.s),
    ).toEqual(['st:MAIN|59714']);
    const locality = normalizeMatchInput({ first_name: 'Ann', last_name: 'Lee', city: 'Bozeman', state: 'MT', zip: '59714' });
    expect([locality.cityZip5s, localityZips(locality)]).toEqual([
      ['59715', '59718'],
      ['59714', '59715', '59718'],
    ]);
  });
});
