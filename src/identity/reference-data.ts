/**
 * Lazy, cached loaders for the public reference files in /reference.
 *
 * The files are small and read synchronously so the normalizers that depend on them can stay
 * plain synchronous pure functions (they are called per row inside hot matching loops, where an
 * async boundary per value would be wasteful). Each loader is keyed by the resolved folder so a
 * test or a tool can point at another copy with the optional `dir` argument.
 *
 * Parsing is a plain split: the README guarantees no field contains a comma or a quote, and only
 * nicknames.csv has CRLF endings, which `splitLines` tolerates for every file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DEFAULT_DIR = fileURLToPath(new URL('../../reference/', import.meta.url));

export type RefDir = string | URL | undefined;

function resolveDir(dir: RefDir): string {
  if (dir === undefined) return DEFAULT_DIR;
  const path = dir instanceof URL ? fileURLToPath(dir) : dir;
  return path.endsWith('/') ? path : `${path}/`;
}

/** Rows of a reference CSV without its header, each row split on commas. */
export function readReferenceCsv(file: string, dir?: RefDir): string[][] {
  const text = readFileSync(resolveDir(dir) + file, 'utf8');
  const lines = text.split(/\r?\n/);
  const rows: string[][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === undefined || line.trim() === '') continue;
    rows.push(line.split(',').map((f) => f.trim()));
  }
  return rows;
}

const cache = new Map<string, unknown>();
// The default folder's tables by loader name alone: normalizing asks for them several times a row, and a key
// string built per call (and hashed by the Map) cost ~0.45 us a row.
const defaults = new Map<string, unknown>();

function cached<T>(name: string, dir: RefDir, build: (dir: string) => T): T {
  if (dir === undefined) {
    let table = defaults.get(name) as T | undefined;
    if (table === undefined) defaults.set(name, (table = cachedIn(name, DEFAULT_DIR, build)));
    return table;
  }
  return cachedIn(name, resolveDir(dir), build);
}

function cachedIn<T>(name: string, resolved: string, build: (dir: string) => T): T {
  const key = `${name}\u0000${resolved}`;
  if (!cache.has(key)) cache.set(key, build(resolved));
  return cache.get(key) as T;
}

/** Drop every loaded table (tests that swap folders). */
export function clearReferenceCache(): void {
  cache.clear();
  defaults.clear();
}

export interface NicknameTable {
  /** lower-case formal name -> its lower-case nicknames (the file's name1 -> name2). */
  nicknamesOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** lower-case name -> names that list it as a nickname (name2 -> name1). */
  formalsOf: ReadonlyMap<string, ReadonlySet<string>>;
}

function foldNick(name: string): string {
  return name.toLowerCase().replace(/['.]/g, '').replace(/-/g, ' ').replace(/\s+/g, ' ').trim();
}

export function loadNicknames(dir?: RefDir): NicknameTable {
  return cached('nicknames', dir, (d) => {
    const nicknamesOf = new Map<string, Set<string>>();
    const formalsOf = new Map<string, Set<string>>();
    const add = (m: Map<string, Set<string>>, k: string, v: string) => {
      let s = m.get(k);
      if (!s) m.set(k, (s = new Set()));
      s.add(v);
    };
    for (const [name1, rel, name2] of readReferenceCsv('nicknames.csv', d)) {
      if (!name1 || !name2 || rel !== 'has_nickname') continue;
      // Same folding as canonicalName (dots/apostrophes dropped, hyphen -> space): "k.c." -> "kc".
      const a = foldNick(name1);
      const b = foldNick(name2);
      add(nicknamesOf, a, b);
      add(formalsOf, b, a);
    }
    return { nicknamesOf, formalsOf };
  });
}

/** Every suffix spelling (variant, abbreviation, primary name; upper case) -> USPS abbreviation. */
export function loadStreetSuffixes(dir?: RefDir): ReadonlyMap<string, string> {
  return cached('suffixes', dir, (d) => {
    const map = new Map<string, string>();
    for (const [name, abbr, variant] of readReferenceCsv('usps_suffixes.csv', d)) {
      if (!name || !abbr) continue;
      map.set(name, abbr);
      map.set(abbr, abbr);
      if (variant) map.set(variant, abbr);
    }
    return map;
  });
}

export interface UnitDesignator {
  abbreviation: string;
  requiresRange: boolean;
}

/** Secondary unit designators: full name and abbreviation (upper case) -> designator. */
export function loadUnitDesignators(dir?: RefDir): ReadonlyMap<string, UnitDesignator> {
  return cached('units', dir, (d) => {
    const map = new Map<string, UnitDesignator>();
    for (const [name, abbr, range] of readReferenceCsv('usps_units.csv', d)) {
      if (!name || !abbr) continue;
      const unit = { abbreviation: abbr, requiresRange: range === 'true' };
      // "BLANK (UNABLE TO DETERMINE)" is only reachable through its '#' abbreviation.
      if (!name.startsWith('BLANK')) map.set(name, unit);
      map.set(abbr, unit);
    }
    return map;
  });
}

export interface ZipInfo {
  city: string;
  state: string;
}

/** ZIP5 -> USPS preferred city and state (city may be empty for a handful of ZCTAs). */
export function loadZips(dir?: RefDir): ReadonlyMap<string, ZipInfo> {
  return cached('zips', dir, (d) => {
    const map = new Map<string, ZipInfo>();
    for (const [zip5, city, state] of readReferenceCsv('zips.csv', d)) {
      if (zip5 && state) map.set(zip5, { city: city ?? '', state });
    }
    return map;
  });
}

/** State -> USPS preferred city -> its ZIP5s in ZIP order (zips.csv; ZIPs without a city are left out). */
export function loadCityZips(dir?: RefDir): ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> {
  return cached('city-zips', dir, () => {
    const out = new Map<string, Map<string, string[]>>();
    for (const [zip5, { city, state }] of loadZips(dir)) {
      if (!city) continue;
      let cities = out.get(state);
      if (!cities) out.set(state, (cities = new Map()));
      const zips = cities.get(city);
      if (zips) zips.push(zip5);
      else cities.set(city, [zip5]);
    }
    for (const cities of out.values()) for (const zips of cities.values()) zips.sort();
    return out;
  });
}

/** Upper-case given names seen in the SSA file, with total count over all decades and sexes. */
export function loadFirstNames(dir?: RefDir): ReadonlyMap<string, number> {
  return cached('first_names', dir, (d) => {
    const map = new Map<string, number>();
    for (const [name, , , count] of readReferenceCsv('first_names.csv', d)) {
      if (!name) continue;
      const key = name.toUpperCase();
      map.set(key, (map.get(key) ?? 0) + Number(count ?? 0));
    }
    return map;
  });
}

/** Upper-case Census 2010 surnames -> rank (1 = most common). */
export function loadSurnames(dir?: RefDir): ReadonlyMap<string, number> {
  return cached('surnames', dir, (d) => {
    const map = new Map<string, number>();
    for (const [name, , rank] of readReferenceCsv('surnames.csv', d)) {
      if (name) map.set(name, Number(rank));
    }
    return map;
  });
}
