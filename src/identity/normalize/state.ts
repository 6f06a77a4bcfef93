/**
 * US state / territory to USPS two-letter code. Accepts codes and full names in any case, with
 * periods or extra spaces ("n.y.", "New  York", "Washington D.C."). Unknown values are rejected
 * rather than guessed: a wrong state would silently break address blocking.
 */
import { foldToAsciiUpper } from './text.ts';
import { fail, ok, type Normalized } from './types.ts';

const NAMES: Record<string, string> = {
  ALABAMA: 'AL',
  ALASKA: 'AK',
  ARIZONA: 'AZ',
  ARKANSAS: 'AR',
  CALIFORNIA: 'CA',
  COLORADO: 'CO',
  CONNECTICUT: 'CT',
  DELAWARE: 'DE',
  FLORIDA: 'FL',
  GEORGIA: 'GA',
  HAWAII: 'HI',
  IDAHO: 'ID',
  ILLINOIS: 'IL',
  INDIANA: 'IN',
  IOWA: 'IA',
  KANSAS: 'KS',
  KENTUCKY: 'KY',
  LOUISIANA: 'LA',
  MAINE: 'ME',
  MARYLAND: 'MD',
  MASSACHUSETTS: 'MA',
  MICHIGAN: 'MI',
  MINNESOTA: 'MN',
  MISSISSIPPI: 'MS',
  MISSOURI: 'MO',
  MONTANA: 'MT',
  NEBRASKA: 'NE',
  NEVADA: 'NV',
  'NEW HAMPSHIRE': 'NH',
  'NEW JERSEY': 'NJ',
  'NEW MEXICO': 'NM',
  'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC',
  'NORTH DAKOTA': 'ND',
  OHIO: 'OH',
  OKLAHOMA: 'OK',
  OREGON: 'OR',
  PENNSYLVANIA: 'PA',
  'RHODE ISLAND': 'RI',
  'SOUTH CAROLINA': 'SC',
  'SOUTH DAKOTA': 'SD',
  TENNESSEE: 'TN',
  TEXAS: 'TX',
  UTAH: 'UT',
  VERMONT: 'VT',
  VIRGINIA: 'VA',
  WASHINGTON: 'WA',
  'WEST VIRGINIA': 'WV',
  WISCONSIN: 'WI',
  WYOMING: 'WY',
  'DISTRICT OF COLUMBIA': 'DC',
  'WASHINGTON DC': 'DC',
  'PUERTO RICO': 'PR',
  GUAM: 'GU',
  'VIRGIN ISLANDS': 'VI',
  'US VIRGIN ISLANDS': 'VI',
  'UNITED STATES VIRGIN ISLANDS': 'VI',
  'AMERICAN SAMOA': 'AS',
  'NORTHERN MARIANA ISLANDS': 'MP',
  'MARSHALL ISLANDS': 'MH',
  MICRONESIA: 'FM',
  'FEDERATED STATES OF MICRONESIA': 'FM',
  PALAU: 'PW',
  'ARMED FORCES AMERICAS': 'AA',
  'ARMED FORCES EUROPE': 'AE',
  'ARMED FORCES PACIFIC': 'AP',
};

// Traditional (GPO / AP style) abbreviations still common in older customer files.
const OLD_ABBREVIATIONS: Record<string, string> = {
  ALA: 'AL',
  ARIZ: 'AZ',
  ARK: 'AR',
  CALIF: 'CA',
  CAL: 'CA',
  COLO: 'CO',
  CONN: 'CT',
  DEL: 'DE',
  FLA: 'FL',
  ILL: 'IL',
  IND: 'IN',
  KAN: 'KS',
  KANS: 'KS',
  MASS: 'MA',
  MICH: 'MI',
  MINN: 'MN',
  MISS: 'MS',
  MONT: 'MT',
  NEB: 'NE',
  NEBR: 'NE',
  NEV: 'NV',
  'N MEX': 'NM',
  'N DAK': 'ND',
  'S DAK': 'SD',
  'N CAR': 'NC',
  'S CAR': 'SC',
  OKLA: 'OK',
  ORE: 'OR',
  OREG: 'OR',
  PENN: 'PA',
  PENNA: 'PA',
  TENN: 'TN',
  TEX: 'TX',
  WASH: 'WA',
  'W VA': 'WV',
  WIS: 'WI',
  WISC: 'WI',
  WYO: 'WY',
};

export const STATE_CODES: ReadonlySet<string> = new Set(Object.values(NAMES));

/** Full state and territory names (upper case, single spaces) -> USPS code; read by the seed-description parser. */
export const STATE_NAMES: Readonly<Record<string, string>> = NAMES;

export function normalizeState(raw: string): Normalized<string> {
  const v = foldToAsciiUpper(raw)
    .replace(/\./g, '')
    .replace(/[^A-Z ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (raw.trim() === '') return fail('empty', 'state is empty');
  const compact = v.replace(/ /g, '');
  if (compact.length === 2 && STATE_CODES.has(compact)) return ok(compact);
  const byName = NAMES[v] ?? NAMES[v.replace(/^STATE OF /, '')] ?? OLD_ABBREVIATIONS[v];
  if (byName) return ok(byName);
  return fail('state_unknown', `state "${raw.trim()}" is not a US state, territory or code`);
}
