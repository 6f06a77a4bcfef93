import { describe, expect, it } from 'vitest';
import { addressKey, normalizeAddress, normalizeCity } from '../../../src/identity/normalize/address/address.ts';
import { addressesFromInput } from '../../../src/identity/normalize/address/input.ts';
import { parseUnitLine, poBoxNumber } from '../../../src/identity/normalize/address/street.ts';

const line = (address_1: string, address_2?: string) => {
  const r = normalizeAddress({ address_1, address_2 });
  return [r.value?.line1 ?? null, r.value?.line2 ?? null];
};

describe('normalizeAddress delivery line', () => {
  it.each([
    ['123 Main Street', '123 MAIN ST', null],
    ['  123   main   st.  ', '123 MAIN ST', null],
    ['123 North Main Street', '123 N MAIN ST', null],
    ['123 N. Main St.', '123 N MAIN ST', null],
    ['456 n. w. 5th ave., suite 200', '456 NW 5TH AVE', 'STE 200'],
    ['456 Northwest Fifth Avenue', '456 NW 5TH AVE', null],
    ['456 North West 5th Av', '456 NW 5TH AVE', null],
    ['1600 Pennsylvania Avenue Northwest', '1600 PENNSYLVANIA AVE NW', null],
    ['1600 Pennsylvania Ave. N.W.', '1600 PENNSYLVANIA AVE NW', null],
    ['10 Elm Ave S', '10 ELM AVE S', null],
    ['123 Main St Apt 4', '123 MAIN ST', 'APT 4'],
    ['123 Main St Apartment 4B', '123 MAIN ST', 'APT 4B'],
    ['123 Main St., Apt. #4', '123 MAIN ST', 'APT 4'],
    ['40 Main Street Apt#3B', '40 MAIN ST', 'APT 3B'],
    ['40 Main Street APT3B', '40 MAIN ST', 'APT 3B'],
    ['789 First St #4', '789 1ST ST', '# 4'],
    ['789 First St # 4', '789 1ST ST', '# 4'],
    ['9 Main St Bldg 2 Apt 4', '9 MAIN ST', 'BLDG 2 APT 4'],
    ['10 E 1st St Rear', '10 E 1ST ST', 'REAR'],
    ['500 Oak Blvd Suite 1200', '500 OAK BLVD', 'STE 1200'],
    ['77 Pine Rd Unit C', '77 PINE RD', 'UNIT C'],
    ['8 Harbor Way Fl 3', '8 HARBOR WAY', 'FL 3'],
    ['12 ONE HUNDRED TWENTY FIFTH STREET', '12 125TH ST', null],
    ['98 Twenty-Third Av', '98 23RD AVE', null],
    ['1 Second Street', '1 2ND ST', null],
    ['1 2nd st', '1 2ND ST', null],
    ['5 Eleventh Ave', '5 11TH AVE', null],
    ['5 21th Ave', '5 21ST AVE', null], // typo'd numeric ordinal corrected
    ['100 N St', '100 N ST', null], // N is the street's name
    ['100 North Ave', '100 NORTH AVE', null],
    ['55 Northwest Hwy', '55 NORTHWEST HWY', null],
    ['77 Avenue B', '77 AVENUE B', null],
    ['500 County Road 5', '500 COUNTY ROAD 5', null],
    ['123 1/2 Elm St', '123 1/2 ELM ST', null],
    ['321 Front St', '321 FRONT ST', null], // FRONT is also a unit designator
    ['12 Lot Ave', '12 LOT AVE', null],
    ['N123W456 Maple Dr', 'N123W456 MAPLE DR', null],
    ['123-45 Queens Blvd', '123-45 QUEENS BLVD', null],
    ['22 Saint Johns Blvd', '22 SAINT JOHNS BLVD', null],
    ['1 Parkway', '1 PARKWAY', null],
    ['1 Boulevard Ln', '1 BOULEVARD LN', null],
    ['14 Rue de la Paix', '14 RUE DE LA PAIX', null],
    ['12 Café Lane', '12 CAFE LN', null],
    ['P.O. Box 12', 'PO BOX 12', null],
    ['PO Box 12', 'PO BOX 12', null],
    ['p o box 12', 'PO BOX 12', null],
    ['POB 12', 'PO BOX 12', null],
    ['P.O.B. 12', 'PO BOX 12', null],
    ['Post Office Box 12', 'PO BOX 12', null],
    ['PO Box #1234', 'PO BOX 1234', null],
    ['Box 55', 'PO BOX 55', null],
    ['POBOX 9', 'PO BOX 9', null],
  ])('%j', (a1, l1, l2) => {
    expect(line(a1)).toEqual([l1, l2]);
  });

  it.each([
    ['Apt 4', 'APT 4'],
    ['apartment 4', 'APT 4'],
    ['Suite 200', 'STE 200'],
    ['ste. 200', 'STE 200'],
    ['#4', '# 4'],
    ['# 4', '# 4'],
    ['4B', '# 4B'],
    ['Unit 12', 'UNIT 12'],
    ['Basement', 'BSMT'],
    ['Penthouse', 'PH'],
    ['Room 101', 'RM 101'],
    ['Floor 3', 'FL 3'],
  ])('address_2 %j -> %s', (a2, want) => {
    expect(line('1 Main St', a2)).toEqual(['1 MAIN ST', want]);
  });

  it('keeps a unit in address_1 over address_2 and drops care-of lines', () => {
    expect(line('1 Main St Apt 4', 'Apt 9')).toEqual(['1 MAIN ST', 'APT 4']);
    expect(line('1 Main St', 'c/o Jane Doe')).toEqual(['1 MAIN ST', null]);
    expect(line('1 Main St', 'Attn: Billing')).toEqual(['1 MAIN ST', null]);
    expect(line('1 Main St', 'Rear Building')).toEqual(['1 MAIN ST', 'REAR BUILDING']);
  });

  it('parses units and PO boxes on their own', () => {
    expect(parseUnitLine('Apt')).toBeNull();
    expect(parseUnitLine('Care of Bob')).toBeNull();
    expect(poBoxNumber('Post Office Box 7')).toBe('7');
    expect(poBoxNumber('123 Box Elder St')).toBeNull();
  });
});

describe('normalizeAddress locality', () => {
  it('normalizes state, zip and city, and fills gaps from the ZIP', () => {
    const r = normalizeAddress({ address_1: '1 Main St', city: 'allston', state: 'Massachusetts', zip: '02134-1234' });
    expect(r.warnings).toEqual([]);
    expect(r.value).toMatchObject({ city: 'ALLSTON', state: 'MA', zip5: '02134', zip4: '1234' });
    const filled = normalizeAddress({ address_1: '1 Main St', zip: '2134' });
    expect(filled.value).toMatchObject({ city: 'ALLSTON', state: 'MA', zip5: '02134' });
    expect(filled.warnings.map((w) => w.code)).toEqual(['zip_leading_zero_restored']);
  });

  it('reports unknown states and bad zips but keeps the street', () => {
    const r = normalizeAddress({ address_1: '1 Main St', city: 'Springfield', state: 'Narnia', zip: '1234X' });
    expect(r.value).toMatchObject({ line1: '1 MAIN ST', state: null, zip5: null, city: 'SPRINGFIELD' });
    expect(r.warnings.map((w) => [w.part, w.code])).toEqual([
      ['zip', 'zip_malformed'],
      ['state', 'state_unknown'],
    ]);
  });

  it('reports a state that disagrees with the ZIP', () => {
    const r = normalizeAddress({ address_1: '1 Main St', state: 'NY', zip: '02134' });
    expect(r.value?.state).toBe('NY');
    expect(r.warnings.map((w) => w.code)).toEqual(['state_zip_mismatch']);
  });

  it('rejects an empty or punctuation-only address_1', () => {
    expect(normalizeAddress({ address_1: '   ' }).value).toBeNull();
    expect(normalizeAddress({ address_1: '---' }).warnings[0]?.code).toBe('address_malformed');
  });

  it.each([
    ['st. louis', 'SAINT LOUIS'],
    ['Ft Worth', 'FORT WORTH'],
    ['Mt. Vernon', 'MOUNT VERNON'],
    ['  san   josé ', 'SAN JOSE'],
    ["Coeur d'Alene", 'COEUR DALENE'],
    ['Winston-Salem', 'WINSTON SALEM'],
    ['', null],
  ])('city %j -> %s', (raw, want) => {
    expect(normalizeCity(raw)).toBe(want);
  });
});

describe('addressKey', () => {
  const key = (a: Parameters<typeof normalizeAddress>[0]) => addressKey(normalizeAddress(a).value!);
  it('ignores directionals, suffix and unit spelling differences', () => {
    const a = key({ address_1: '123 North Main Street Apt 4', zip: '02134' });
    const b = key({ address_1: '123 n main st', address_2: '#4', zip: '02134-0001' });
    expect(a).toEqual({ key: '123|MAIN|02134', unit: '4' });
    expect(b).toEqual(a);
  });
  it('falls back to city and state without a ZIP, and gives up without either', () => {
    expect(key({ address_1: '5 Oak Ave', city: 'Boston', state: 'MA' })?.key).toBe('5|OAK|BOSTON,MA');
    expect(key({ address_1: '5 Oak Ave' })).toBeNull();
    expect(key({ address_1: 'Oak Ave', zip: '02134' })).toBeNull();
  });
  it('keys PO boxes by box number', () => {
    expect(key({ address_1: 'P.O. Box 12', zip: '02134' })?.key).toBe('POBOX|12|02134');
  });
});

describe('addressesFromInput', () => {
  it('takes the top-level address then each entry, with zip alias order', () => {
    const { addresses, warnings } = addressesFromInput({
      address_1: '1 Main St',
      city: 'Boston',
      state: 'MA',
      zip: '02108',
      zip5: '99999',
      addresses: [
        { address_1: '2 Elm St', zip5: '', postal_code: '02139', zip_code: '99999', country: 'US' },
        { address_1: '3 Oak St', zip: 2134 },
        { city: 'Nowhere' },
        'not an object',
        { address_1: '4 Pine St', zip_code: '02140' },
      ],
    });
    expect(addresses.map((a) => [a.source, a.address_1, a.zip])).toEqual([
      ['', '1 Main St', '02108'],
      ['addresses[0].', '2 Elm St', '02139'],
      ['addresses[1].', '3 Oak St', '2134'],
      ['addresses[4].', '4 Pine St', '02140'],
    ]);
    expect(addresses[1]).not.toHaveProperty('country');
    expect(warnings.map((w) => [w.field, w.code])).toEqual([
      ['addresses[2].address_1', 'address_1_missing'],
      ['addresses[3]', 'invalid_type'],
    ]);
  });

  it('warns when top-level address parts come without address_1', () => {
    const { addresses, warnings } = addressesFromInput({ city: 'Boston', zip: '02108' });
    expect(addresses).toEqual([]);
    expect(warnings[0]?.code).toBe('address_1_missing');
  });

  it('rejects a non-array addresses value', () => {
    expect(addressesFromInput({ addresses: '1 Main St' }).warnings[0]?.code).toBe('invalid_type');
  });
});
