/**
 * The ZIP5s of a city: a record that names its city and state but no ZIP (a common CRM export) still
 * has a locality. The matcher blocks on it (name + ZIP blocks for each of the city's ZIPs, a street
 * address keyed in each of them) and counts a candidate living in one of them as a locality agreement,
 * exactly as it does a ZIP (docs/decisions/045, amendment "city locality").
 *
 * Cities are USPS preferred names of the reference ZIP geography (zips.csv), as normalizeCity spells
 * them ("ST LOUIS" -> "SAINT LOUIS"). A misspelled city ("HOUSTN") is read as the one city of its state
 * within Jaro-Winkler CITY_FUZZY_MIN when no other city of the state comes within CITY_FUZZY_MARGIN of it.
 * Only cities with the same first letter are compared (Jaro-Winkler weighs the prefix: a different first
 * letter does not reach CITY_FUZZY_MIN but for near-identical long names), so a file full of unknown cities
 * costs about a hundred comparisons per distinct spelling, not the state's every city.
 */
import { loadCityZips, type RefDir } from '../../reference-data.ts';
import { jaroWinkler } from '../similarity.ts';

/** Least Jaro-Winkler similarity for a misspelled city to be read as a city of its state. */
export const CITY_FUZZY_MIN = 0.92;
/** The runner-up must be at least this much less similar, or the spelling is ambiguous and left unread. */
export const CITY_FUZZY_MARGIN = 0.02;
/** Distinct misspellings remembered (a file repeats its cities); the memo is dropped when full. */
const MEMO_MAX = 50_000;

const memo = new Map<string, readonly string[]>();
type Cities = ReadonlyMap<string, readonly string[]>;
const byInitial = new WeakMap<Cities, Map<string, [string, readonly string[]][]>>();

function citiesStarting(cities: Cities, initial: string): readonly [string, readonly string[]][] {
  let buckets = byInitial.get(cities);
  if (!buckets) {
    buckets = new Map();
    for (const entry of cities) {
      const list = buckets.get(entry[0][0]!);
      if (list) list.push(entry);
      else buckets.set(entry[0][0]!, [entry]);
    }
    byInitial.set(cities, buckets);
  }
  return buckets.get(initial) ?? [];
}

/** ZIP5s of `city` (normalized, see normalizeCity) in `state` (USPS code); [] when unknown or ambiguous. */
export function cityZip5s(city: string | null, state: string | null, dir?: RefDir): readonly string[] {
  if (!city || !state) return [];
  const cities = loadCityZips(dir).get(state);
  if (!cities) return [];
  const exact = cities.get(city);
  if (exact) return exact;
  const key = `${dir ?? ''}\u0000${state}\u0000${city}`;
  let found = memo.get(key);
  if (found === undefined) {
    found = closestCity(cities, city);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(key, found);
  }
  return found;
}

function closestCity(cities: Cities, city: string): readonly string[] {
  let best: readonly string[] = [];
  let bestScore = 0;
  let second = 0;
  for (const [name, zips] of citiesStarting(cities, city[0]!)) {
    const s = jaroWinkler(city, name);
    if (s > bestScore) {
      second = bestScore;
      bestScore = s;
      best = zips;
    } else if (s > second) second = s;
  }
  return bestScore >= CITY_FUZZY_MIN && bestScore - second >= CITY_FUZZY_MARGIN ? best : [];
}
