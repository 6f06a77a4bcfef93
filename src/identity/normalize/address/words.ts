/**
 * Word tables for street lines: directionals (USPS Pub 28 C7-style) and spelled-out ordinal
 * street names ("FIRST" -> "1ST", "ONE HUNDRED TWENTY FIFTH" -> "125TH").
 */

export const DIRECTIONALS: Record<string, string> = {
  N: 'N',
  S: 'S',
  E: 'E',
  W: 'W',
  NE: 'NE',
  NW: 'NW',
  SE: 'SE',
  SW: 'SW',
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
};

/**
 * Directional at tokens[i]: one word ("NORTHWEST", "NW") or two ("NORTH WEST", "N W").
 * Returns the abbreviation and how many tokens it used.
 */
export function directionalAt(tokens: readonly string[], i: number): { dir: string; used: number } | null {
  const a = DIRECTIONALS[tokens[i] ?? ''];
  if (!a) return null;
  const b = DIRECTIONALS[tokens[i + 1] ?? ''];
  if ((a === 'N' || a === 'S') && (b === 'E' || b === 'W')) return { dir: a + b, used: 2 };
  return { dir: a, used: 1 };
}

const UNITS: Record<string, number> = {
  ONE: 1,
  TWO: 2,
  THREE: 3,
  FOUR: 4,
  FIVE: 5,
  SIX: 6,
  SEVEN: 7,
  EIGHT: 8,
  NINE: 9,
  TEN: 10,
  ELEVEN: 11,
  TWELVE: 12,
  THIRTEEN: 13,
  FOURTEEN: 14,
  FIFTEEN: 15,
  SIXTEEN: 16,
  SEVENTEEN: 17,
  EIGHTEEN: 18,
  NINETEEN: 19,
  TWENTY: 20,
  THIRTY: 30,
  FORTY: 40,
  FIFTY: 50,
  SIXTY: 60,
  SEVENTY: 70,
  EIGHTY: 80,
  NINETY: 90,
};
const ORDINALS: Record<string, number> = {
  FIRST: 1,
  SECOND: 2,
  THIRD: 3,
  FOURTH: 4,
  FIFTH: 5,
  SIXTH: 6,
  SEVENTH: 7,
  EIGHTH: 8,
  NINTH: 9,
  TENTH: 10,
  ELEVENTH: 11,
  TWELFTH: 12,
  THIRTEENTH: 13,
  FOURTEENTH: 14,
  FIFTEENTH: 15,
  SIXTEENTH: 16,
  SEVENTEENTH: 17,
  EIGHTEENTH: 18,
  NINETEENTH: 19,
  TWENTIETH: 20,
  THIRTIETH: 30,
  FORTIETH: 40,
  FIFTIETH: 50,
  SIXTIETH: 60,
  SEVENTIETH: 70,
  EIGHTIETH: 80,
  NINETIETH: 90,
  HUNDREDTH: 100,
};

export function ordinalSuffix(n: number): string {
  const mod100 = n % 100;
  if (mod100 >= 11 && mod100 <= 13) return `${n}TH`;
  return `${n}${({ 1: 'ST', 2: 'ND', 3: 'RD' } as Record<number, string>)[n % 10] ?? 'TH'}`;
}

/**
 * Replace spelled ordinals in street-name tokens and upper-case numeric ones ("1st" was already
 * upper-cased; "1 ST" is left alone because ST there is a suffix). A run of cardinal words
 * (with optional HUNDRED / AND) ending in an ordinal word becomes one numeric ordinal token.
 */
export function numberOrdinals(tokens: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let j = i;
    let total = 0;
    let current = 0;
    let consumed = 0;
    for (; j < tokens.length; j++) {
      const t = tokens[j]!;
      if (UNITS[t] !== undefined) current += UNITS[t];
      else if (t === 'HUNDRED' && current > 0) current *= 100;
      else if (t === 'AND' && current > 0) continue;
      else if (ORDINALS[t] !== undefined) {
        if (t === 'HUNDREDTH') current = (current || 1) * 100;
        else current += ORDINALS[t];
        total += current;
        consumed = j - i + 1;
        break;
      } else break;
    }
    if (consumed > 0) {
      out.push(ordinalSuffix(total));
      i += consumed;
    } else {
      const t = tokens[i]!;
      // "2ND" / "22ND" stay; a bad numeric ordinal like "2TH" is corrected.
      const m = /^(\d+)(ST|ND|RD|TH)$/.exec(t);
      out.push(m ? ordinalSuffix(Number(m[1])) : t);
      i++;
    }
  }
  return out;
}
