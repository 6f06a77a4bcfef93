/**
 * Secondary unit designators (USPS Pub 28 C2, usps_units.csv): APARTMENT -> APT, SUITE -> STE,
 * '#4' -> '# 4'. A unit inside address_1 ("123 MAIN ST APT 4") is split off; address_2 is
 * canonicalized on its own.
 */
import { loadUnitDesignators, type RefDir } from '../../reference-data.ts';

export interface Unit {
  /** USPS abbreviation, '#' when only a number sign or a bare number was given. */
  type: string;
  /** Range (unit number), null for designators that take none (REAR, BSMT...). */
  number: string | null;
  /** Canonical text, e.g. "APT 4B", "# 12", "REAR". */
  text: string;
}

// Designators common enough in customer data to be trusted anywhere after the street;
// the rest (LOT, KEY, PIER, FRONT, SIDE...) double as street words and must follow a suffix.
const STRONG = new Set(['APT', 'STE', 'UNIT', '#', 'RM', 'FL', 'BLDG', 'DEPT', 'TRLR', 'SPC', 'PH', 'OFC']);
// Extra spellings seen in the wild that the USPS table lacks.
const ALIASES: Record<string, string> = { APPT: 'APT', AP: 'APT', SUIT: 'STE', STE: 'STE', NO: '#', NUM: '#', FLR: 'FL', BLD: 'BLDG' };

export function designator(token: string, dir?: RefDir): { abbr: string; requiresRange: boolean } | null {
  const alias = ALIASES[token];
  const table = loadUnitDesignators(dir);
  const hit = table.get(alias ?? token);
  if (hit) return { abbr: hit.abbreviation, requiresRange: hit.requiresRange };
  return null;
}

export function isStrongDesignator(abbr: string): boolean {
  return STRONG.has(abbr);
}

/** A token that can be a unit range: has a digit, or is one or two letters ("B", "PH"). */
export function looksLikeRange(token: string | undefined): boolean {
  return !!token && (/\d/.test(token) || /^[A-Z]{1,2}$/.test(token));
}

/**
 * Parse unit tokens that start with a designator (or a bare range). Returns null when the
 * tokens do not form a unit. Multiple designators ("BLDG 2 APT 4") are kept in order; the
 * last one is reported as type/number since it is the most specific.
 */
export function parseUnitTokens(tokens: readonly string[], dir?: RefDir): Unit | null {
  if (tokens.length === 0) return null;
  const parts: string[] = [];
  let type: string | null = null;
  let number: string | null = null;
  let i = 0;
  while (i < tokens.length) {
    const d = designator(tokens[i]!, dir);
    if (d) {
      i++;
      if (tokens[i] === '#') i++; // "APT # 4" -> "APT 4"
      const range = tokens[i];
      if (looksLikeRange(range)) {
        parts.push(`${d.abbr} ${range}`);
        type = d.abbr;
        number = range!;
        i++;
      } else if (!d.requiresRange) {
        parts.push(d.abbr);
        type = d.abbr;
        number = null;
      } else {
        return null; // "APT" with nothing usable after it
      }
    } else if (i === 0 && tokens.length === 1 && looksLikeRange(tokens[0])) {
      // address_2 of just "4B": a unit with unknown designator.
      parts.push(`# ${tokens[0]}`);
      type = '#';
      number = tokens[0]!;
      i++;
    } else {
      return null;
    }
  }
  return type ? { type, number, text: parts.join(' ') } : null;
}
