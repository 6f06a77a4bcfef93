/**
 * The namesake set (issue #31): a small person file for `ads graph import` whose people share a few ZIPs and
 * the most common first names and surnames, a third of them in pairs of namesakes born the same day in
 * different ZIPs, and the list rows that query it with first name, last name, US dob (MM/DD/YYYY) and ZIP only.
 * Every present row identifies one person by its four values; the absent rows identify none. Used by
 * test/matching/namesakes.test.ts and bench/match-namesakes.ts; the generated graph has too few such pairs
 * for the other labelled sets to show the case.
 */
import { loadFirstNames, loadSurnames } from '../reference-data.ts';
import { rng, title } from './labelled-set.ts';

export interface NamesakePerson {
  id: number;
  first: string;
  last: string;
  /** YYYY-MM-DD */
  dob: string;
  zip: string;
  /** A street for half of them; the other half have a ZIP only (the importer keeps it as their locality). */
  street: string | null;
}

export type NamesakeKind = 'namesake' | 'single' | 'absent_other_zip' | 'absent_other_dob';

export interface NamesakeRow {
  record: { row_id: string; first_name: string; last_name: string; dob: string; zip: string };
  kind: NamesakeKind;
  /** The person the row identifies, or null (absent: no graph person has these four values). */
  personId: number | null;
}

export interface NamesakeSet {
  persons: NamesakePerson[];
  rows: NamesakeRow[];
  /** The import file (CSV, header row) and its mapping. */
  csv: string;
  mapping: Record<string, string>;
}

/** Cambridge and Allston-Brighton, MA: real ZIPs (the importer completes city and state from them). */
export const NAMESAKE_ZIPS = ['02134', '02135', '02138', '02139'] as const;
/** A ZIP of the same area where nobody of the set lives. */
const EMPTY_ZIP = '02140';

/** The `top` entries of a reference table by `score` (highest first), ties by name. */
function top(table: ReadonlyMap<string, number>, n: number, score: (v: number) => number): [string, number][] {
  return [...table].sort((a, b) => score(b[1]) - score(a[1]) || (a[0] < b[0] ? -1 : 1)).slice(0, n);
}

function picker(entries: readonly [string, number][], r: () => number): () => string {
  const total = entries.reduce((a, e) => a + e[1], 0);
  return () => {
    let x = r() * total;
    for (const [name, w] of entries) if ((x -= w) <= 0) return name;
    return entries[entries.length - 1]![0];
  };
}

const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
const isoDate = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * `n` persons (about a third in namesake pairs) and one row per person, plus `absent` rows of each absent kind:
 * a namesake pair's name and dob in a ZIP where neither lives, and a person's name and ZIP with a dob nobody of
 * that name has. Deterministic in `seed`.
 */
export function namesakeSet(n: number, seed = 31, absent = Math.ceil(n / 20)): NamesakeSet {
  const r = rng(seed);
  // The 40 most common first names weighted by their counts; the 40 most common surnames (the table holds their
  // ranks) weighted like a Zipf curve.
  const firsts = picker(
    top(loadFirstNames(), 40, (count) => count),
    r,
  );
  const lasts = picker(
    top(loadSurnames(), 40, (rank) => -rank).map(([name], i) => [name, 1 / (i + 1)]),
    r,
  );
  const birth = () => isoDate(Date.UTC(1945, 0, 1) + Math.floor(r() * 55 * 365.25) * 86_400_000);
  const persons: NamesakePerson[] = [];
  const taken = new Set<string>();
  const add = (first: string, last: string, dob: string, zip: string) => {
    const id = persons.length + 1;
    persons.push({ id, first, last, dob, zip, street: id % 2 === 0 ? `${10 + Math.floor(r() * 890)} ${title(lasts())} St` : null });
    taken.add(`${first}|${last}|${dob}|${zip}`);
  };
  const zip = () => NAMESAKE_ZIPS[Math.floor(r() * NAMESAKE_ZIPS.length)]!;
  while (persons.length < n) {
    const [first, last, dob, z] = [firsts(), lasts(), birth(), zip()];
    if (taken.has(`${first}|${last}|${dob}|${z}`)) continue;
    add(first, last, dob, z);
    // A third of the persons have a namesake born the same day in another ZIP.
    if (persons.length < n && r() < 0.2) {
      const other = NAMESAKE_ZIPS.filter((x) => x !== z)[Math.floor(r() * (NAMESAKE_ZIPS.length - 1))]!;
      if (!taken.has(`${first}|${last}|${dob}|${other}`)) add(first, last, dob, other);
    }
  }
  const byNameDob = new Map<string, NamesakePerson[]>();
  for (const p of persons) {
    const k = `${p.first}|${p.last}|${p.dob}`;
    byNameDob.set(k, [...(byNameDob.get(k) ?? []), p]);
  }
  const row = (p: Pick<NamesakePerson, 'first' | 'last' | 'dob' | 'zip'>, id: string) => ({
    row_id: id,
    first_name: title(p.first),
    last_name: title(p.last),
    dob: usDate(p.dob),
    zip: p.zip,
  });
  const rows: NamesakeRow[] = persons.map((p) => ({
    record: row(p, `p${p.id}`),
    kind: byNameDob.get(`${p.first}|${p.last}|${p.dob}`)!.length > 1 ? 'namesake' : 'single',
    personId: p.id,
  }));
  const pairs = [...byNameDob.values()].filter((g) => g.length > 1);
  const names = new Set(persons.map((p) => `${p.first}|${p.last}`));
  for (let i = 0; i < absent && pairs.length > 0; i++) {
    rows.push({ record: row({ ...pairs[i % pairs.length]![0]!, zip: EMPTY_ZIP }, `a${i}`), kind: 'absent_other_zip', personId: null });
    const p = persons[Math.floor(r() * persons.length)]!;
    const dob = isoDate(Date.parse(p.dob) + (400 + Math.floor(r() * 3000)) * 86_400_000);
    if (!byNameDob.has(`${p.first}|${p.last}|${dob}`) && names.has(`${p.first}|${p.last}`)) {
      rows.push({ record: row({ ...p, dob }, `b${i}`), kind: 'absent_other_dob', personId: null });
    }
  }
  const csv = [
    'id,given_name,family_name,birth_date,street,zip_code',
    ...persons.map((p) => [p.id, title(p.first), title(p.last), usDate(p.dob), p.street ?? '', p.zip].join(',')),
  ].join('\n');
  return {
    persons,
    rows,
    csv,
    mapping: {
      person_key: 'id',
      first_name: 'given_name',
      last_name: 'family_name',
      dob: 'birth_date',
      address_1: 'street',
      zip: 'zip_code',
    },
  };
}
