/**
 * The micro-batch path: no joins, only ART-served point lookups, scoring in JS.
 *
 *   1. `m_key WHERE k IN (<the batch's keys>)`             -> hits (k, person_key, kind, unit)
 *   2. `m_person WHERE person_key IN (<persons hit>)`      -> candidate attributes (or the process's copy of
 *      m_person, resident-persons.ts, once the matcher is warmed)
 *   3. features, weights, shortlist in JS (compare.ts / model.ts)
 *
 * Both statements are single-table scans with a constant IN filter, which DuckDB turns into ART
 * index scans (a join never uses an index; the old single statement spent most of its ~350 ms in
 * FSST row fetches and the plan around them). The features are exactly those of candidateSql
 * (candidates.ts): email/phone/address agreement from which blocks hit, names and dob from the JS
 * twins of the SQL comparators; test/matching checks micro-batch/file-path parity.
 */
import { comparedDob, localityZips, recordZips, type NormalizedRecord } from '../normalize/record.ts';
import { nameVariants } from '../normalize/nickname.ts';
import { compareDob, compareNames, emailLocalNear } from './compare.ts';
import { KIND, onStreet, rowHouseZips, type StagedKey } from './keys.ts';
import { matchKeys } from './row-evidence.ts';
import { canQualify, type ScoredCandidate, type SpatialAnchor } from './levels.ts';
import { PRIOR_SCORING, type Scoring } from './params.ts';
import { PERSON_COLUMNS, type ResidentPersons } from './resident-persons.ts';
import { ADDR, EMAIL, ID, type Features } from './types.ts';

type Row = Record<string, unknown>;
type Query = (sql: string) => Promise<Row[]>;

const big = (v: unknown): bigint => BigInt(v as bigint | number | string);
const bigOrNull = (v: unknown): bigint | null => (v === null || v === undefined ? null : big(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const inList = (xs: Iterable<bigint>) => {
  const s = [...xs].join(', ');
  return s || 'NULL';
};

export function keyLookupSql(mx: string, keys: Iterable<bigint>): string {
  return `SELECT k, person_key, kind, unit FROM ${mx}.m_key WHERE k IN (${inList(keys)})`;
}

export function personLookupSql(mx: string, persons: Iterable<bigint>): string {
  return `SELECT ${PERSON_COLUMNS} FROM ${mx}.m_person WHERE person_key IN (${inList(persons)})`;
}

/**
 * Point lookups split over up to `ways` statements run at once (each on its own connection of the
 * warehouse pool): an index scan runs on one thread, so two halves use both cores. Rows concatenated.
 */
export async function splitLookup<T>(
  query: Query,
  values: readonly T[],
  ways: number,
  sql: (part: readonly T[]) => string,
): Promise<Row[]> {
  const n = Math.max(1, Math.min(ways, Math.ceil(values.length / 64)));
  if (n === 1) return query(sql(values));
  const size = Math.ceil(values.length / n);
  const parts = Array.from({ length: n }, (_, i) => values.slice(i * size, (i + 1) * size)).filter((p) => p.length > 0);
  return (await Promise.all(parts.map((p) => query(sql(p))))).flat();
}

/** Distinct ZIP5s the row gives, in address order (the first is its spatial ZIP; stage-lines.ts spatialZip). */
export function rowZips(row: NormalizedRecord): string[] {
  return recordZips(row);
}

interface Hit {
  email: boolean;
  near: boolean;
  phone: boolean;
  addr: number;
}

/**
 * Per-row shortlist: of the candidates that can take part in a decision (levels.ts canQualify; the file path drops
 * the others in SQL), the top 3 by weight, the best current address and the best email/phone.
 */
export function shortlist(all: ScoredCandidate[]): ScoredCandidate[] {
  const cands = all.filter((c) => canQualify(c.features));
  if (cands.length <= 3) return cands;
  const byW = (a: ScoredCandidate, b: ScoredCandidate) =>
    b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0);
  const sorted = [...cands].sort(byW);
  const keep = new Set(sorted.slice(0, 3));
  const firstWhere = (pred: (c: ScoredCandidate) => boolean) => sorted.find(pred) ?? sorted[0]!;
  keep.add(firstWhere((c) => c.features.address === ADDR.unit || c.features.address === ADDR.street));
  keep.add(firstWhere((c) => c.features.email === ID.agree || c.features.phone === ID.agree));
  return sorted.filter((c) => keep.has(c));
}

/** A graph residence on the row's street (spatial level), see streetAnchorSql in candidates.ts. */
export interface StreetAnchor {
  person: bigint;
  household: bigint | null;
}

/**
 * Candidates of every row (index = position in `rows`), two point-lookup statements in all.
 * `keys`: the blocks to look up (default matchKeys: row-evidence.ts). `streets`, when given, receives
 * each row's street anchor (the lowest anchor person among the row's streets the house number is on).
 */
export async function pointCandidates(
  query: Query,
  mx: string,
  rows: readonly NormalizedRecord[],
  keys: readonly StagedKey[][] = rows.map(matchKeys),
  ways = 1,
  streets?: Map<number, StreetAnchor>,
  scoring: Scoring = PRIOR_SCORING,
  resident: ResidentPersons | null = null,
): Promise<Map<number, ScoredCandidate[]>> {
  const out = new Map<number, ScoredCandidate[]>();
  const all = new Set<bigint>();
  for (const ks of keys) for (const k of ks) all.add(k.k);
  if (all.size === 0) return out;

  // 1. key -> graph hits
  const hitsByKey = new Map<bigint, { person: bigint; kind: number; unit: string | null }[]>();
  for (const h of await splitLookup(query, [...all], ways, (part) => keyLookupSql(mx, part))) {
    const k = big(h.k);
    const e = { person: big(h.person_key), kind: Number(h.kind), unit: strOrNull(h.unit) };
    const list = hitsByKey.get(k);
    if (list) list.push(e);
    else hitsByKey.set(k, [e]);
  }
  if (hitsByKey.size === 0) return out;

  // per (row, person): which blocks agree (candidateSql's `cand`); street hits are anchors, not candidates
  const anchorOf = new Map<number, bigint>();
  const perRow: Map<bigint, Hit>[] = keys.map((ks, r) => {
    const m = new Map<bigint, Hit>();
    for (const key of ks) {
      for (const g of hitsByKey.get(key.k) ?? []) {
        if (g.kind === KIND.street || key.kind === KIND.street) {
          const a = anchorOf.get(r);
          if (g.kind === key.kind && onStreet(key.unit, g.unit) && (a === undefined || g.person < a)) anchorOf.set(r, g.person);
          continue;
        }
        let h = m.get(g.person);
        if (!h) m.set(g.person, (h = { email: false, near: false, phone: false, addr: 0 }));
        if (g.kind === KIND.email) h.email = true;
        else if (g.kind === KIND.emailLocal || (g.kind === KIND.emailDomainName && emailLocalNear(key.unit, g.unit))) h.near = true;
        else if (g.kind === KIND.phone) h.phone = true;
        else if (g.kind === KIND.address) h.addr = Math.max(h.addr, (key.unit ?? '') === (g.unit ?? '') ? 3 : 2);
        else if (g.kind === KIND.addressHistory) h.addr = Math.max(h.addr, 1);
      }
    }
    return m;
  });
  const persons = new Set<bigint>();
  for (const m of perRow) for (const p of m.keys()) persons.add(p);
  if (streets) for (const p of anchorOf.values()) persons.add(p);
  if (persons.size === 0) return out;

  // 2. candidate attributes
  const attrs = new Map<bigint, Row>();
  // From the process's copy of m_person when the matcher was warmed (resident-persons.ts), else from the index.
  const found = resident ? resident.rows(persons) : await splitLookup(query, [...persons], ways, (part) => personLookupSql(mx, part));
  for (const p of found) attrs.set(big(p.person_key), p);
  if (streets) {
    for (const [r, person] of anchorOf) {
      const p = attrs.get(person);
      if (p) streets.set(r, { person, household: bigOrNull(p.household_key) });
    }
  }

  // 3. features and weights (candidateSql's f0..f3)
  rows.forEach((row, r) => {
    const hits = perRow[r]!;
    if (hits.size === 0) return;
    const zips = localityZips(row);
    const houseZips = rowHouseZips(row);
    const hasEmail = row.emailHashes.length > 0;
    const hasPhone = row.phoneHashes.length > 0;
    const hasAddr = zips.length > 0 || row.addresses.length > 0;
    const variants = row.name.first ? nameVariants(row.name.first) : [];
    const dob = comparedDob(row);
    const cands: ScoredCandidate[] = [];
    for (const [personKey, h] of hits) {
      const p = attrs.get(personKey);
      if (!p) continue;
      const zip5 = strOrNull(p.zip5);
      const address =
        h.addr === 3
          ? ADDR.unit
          : h.addr === 2
            ? ADDR.street
            : h.addr === 1
              ? ADDR.history
              : zip5 !== null && p.house !== null && houseZips.includes(`${zip5}:${String(p.house)}`)
                ? ADDR.house
                : zip5 !== null && zips.includes(zip5)
                  ? ADDR.zip
                  : hasAddr && zip5 !== null
                    ? ADDR.disagree
                    : ADDR.missing;
      const features: Features = {
        email: h.email ? ID.agree : h.near ? EMAIL.near : hasEmail ? ID.disagree : ID.missing,
        phone: h.phone ? ID.agree : hasPhone ? ID.disagree : ID.missing,
        ...compareNames(row, variants, {
          firstName: strOrNull(p.first_name),
          lastName: strOrNull(p.last_name),
          nickname: strOrNull(p.nickname),
        }),
        dob: compareDob(dob, strOrNull(p.dob)),
        address,
      };
      const weight = scoring.weight(features, row.name.first, row.name.last);
      cands.push({
        personKey,
        householdKey: bigOrNull(p.household_key),
        hhRef: bigOrNull(p.hh_ref),
        features,
        weight,
        probability: scoring.probability(weight),
      });
    }
    if (cands.length) out.set(r, shortlist(cands));
  });
  return out;
}

export interface AnchorTables {
  /** One worker per work ZIP (spatial_work). */
  work: Map<string, { person: bigint | null; household: bigint | null }>;
}

/** The work anchor table (one row per ZIP: tens of thousands at most), read once per index. */
export async function loadAnchors(query: Query, mx: string): Promise<AnchorTables> {
  const work: AnchorTables['work'] = new Map();
  for (const a of await query(`SELECT zip5, person_key, household_key FROM ${mx}.m_work_anchor`)) {
    work.set(String(a.zip5), { person: bigOrNull(a.person_key), household: bigOrNull(a.household_key) });
  }
  return { work };
}

/**
 * The spatial anchor of a row: only when its address is on a graph street (`street`, the residence
 * found by the street key) - then that residence, or a person working in the row's first ZIP.
 */
export function spatialAnchor(
  t: AnchorTables,
  zip: string | null | undefined,
  street: StreetAnchor | null | undefined,
): SpatialAnchor | null {
  if (!street) return null;
  const w = zip ? t.work.get(zip) : undefined;
  return { resPerson: street.person, resHousehold: street.household, workPerson: w?.person ?? null, workHousehold: w?.household ?? null };
}
