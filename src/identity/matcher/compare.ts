/**
 * Field comparators, written twice on purpose: in JS (for `scoreCandidate`, unit tests, and
 * anything that scores without DuckDB) and as SQL expressions (for the set-based engine). The two
 * are kept in one file so a change to one is made next to the other; test/matching checks that
 * both give the same features for real candidates.
 */
import { nameVariants } from '../normalize/nickname.ts';
import { jaroWinkler } from '../normalize/similarity.ts';
import { comparedDob, localityZips, type NormalizedRecord } from '../normalize/record.ts';
import { EMAIL_LOCAL_MIN, houseZipOf, rowHouseZips, soundex } from './keys.ts';
import { nameWeight } from './model.ts';
import { ADDR, DOB, EMAIL, FIRST, ID, LAST, type CandidateAttributes, type Features } from './types.ts';

export const FUZZY_NAME = 0.9;
/** The lower Jaro-Winkler band of names (FIRST.fuzzyLow, LAST.fuzzyLow): a typo too heavy for FUZZY_NAME (MICHEAL/MIKAEL). */
export const FUZZY_NAME_LOW = 0.8;
/** Most edits between the row's and the graph's local part at one domain that still count as a `near` email. */
export const EMAIL_NEAR_MAX_EDITS = 2;

/** Levenshtein distance, as DuckDB's levenshtein(). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Whether an `ed:` block hit (same domain and full name) is near: local parts within EMAIL_NEAR_MAX_EDITS. */
export function emailLocalNear(rowLocal: string | null, graphLocal: string | null): boolean {
  return rowLocal !== null && graphLocal !== null && levenshtein(rowLocal, graphLocal) <= EMAIL_NEAR_MAX_EDITS;
}

export { jaroWinkler };

/** First-name level. `variants` = nameVariants(input) (nickname-equivalent spellings). */
export function compareFirst(
  input: string | null,
  graph: string | null,
  variants: readonly string[],
  graphNickname?: string | null,
): number {
  if (!input || !graph) return FIRST.missing;
  if (input === graph) return FIRST.exact;
  if (variants.includes(graph) || input === graphNickname) return FIRST.nickname;
  if (input.length === 1) return input === graph[0] ? FIRST.initial : FIRST.disagree;
  const jw = jaroWinkler(input, graph);
  return jw >= FUZZY_NAME ? FIRST.fuzzy : jw >= FUZZY_NAME_LOW ? FIRST.fuzzyLow : FIRST.disagree;
}

export function compareLast(input: string | null, graph: string | null): number {
  if (!input || !graph) return LAST.missing;
  if (input === graph) return LAST.exact;
  const jw = jaroWinkler(input, graph);
  if (jw >= FUZZY_NAME) return LAST.fuzzy;
  if (input.length > 1 && soundex(input) === soundex(graph)) return LAST.phonetic;
  return input.length > 1 && jw >= FUZZY_NAME_LOW ? LAST.fuzzyLow : LAST.disagree;
}

/** Crosswise first-name comparison: no nickname table (the value came from a surname field). */
function compareFirstCross(input: string | null, graph: string | null): number {
  return compareFirst(input, graph, []);
}

/** Decimal digits of a and b (the low `n`) that differ: 1980 vs 1981 = 1, 03 vs 30 = 2. */
function digitsOff(a: number, b: number, n: number): number {
  let d = 0;
  for (let k = 0, p = 1; k < n; k++, p *= 10) if (Math.floor(a / p) % 10 !== Math.floor(b / p) % 10) d++;
  return d;
}

/**
 * dob level (types.ts DOB), first that applies: exact; one digit off (one digit of YYYY-MM-DD, or the year one
 * or ten off with month and day the same: 1989 vs 1990); day and month swapped; same year and month.
 */
export function compareDob(input: string | null, graph: string | null): number {
  if (!input || !graph) return DOB.missing;
  // A partial dob ("1985-03" or "1985", record.ts dobPartial): agrees by what it gives, or disagrees.
  if (input.length === 7) return graph.startsWith(`${input}-`) ? DOB.month : DOB.disagree;
  if (input.length === 4) return graph.startsWith(`${input}-`) ? DOB.year : DOB.disagree;
  if (input === graph) return DOB.exact;
  const [iy, im, id] = input.split('-').map(Number) as [number, number, number];
  const [gy, gm, gd] = graph.split('-').map(Number) as [number, number, number];
  if (digitsOff(iy, gy, 4) + digitsOff(im, gm, 2) + digitsOff(id, gd, 2) === 1) return DOB.digit;
  if (im === gm && id === gd && (Math.abs(iy - gy) === 1 || Math.abs(iy - gy) === 10)) return DOB.digit;
  if (iy === gy && im === gd && id === gm) return DOB.swap;
  if (iy === gy && im === gm) return DOB.yearMonth;
  return DOB.disagree;
}

/** Names straight or crosswise, whichever weighs more (a swapped pair pays SWAP_PENALTY). */
export function compareNames(
  row: Pick<NormalizedRecord, 'name'>,
  variants: readonly string[],
  c: Pick<CandidateAttributes, 'firstName' | 'lastName' | 'nickname'>,
): Pick<Features, 'first' | 'last' | 'swapped'> {
  const straight = {
    first: compareFirst(row.name.first, c.firstName, variants, c.nickname),
    last: compareLast(row.name.last, c.lastName),
    swapped: false,
  };
  const cross = { first: compareFirstCross(row.name.last, c.firstName), last: compareLast(row.name.first, c.lastName), swapped: true };
  return nameWeight(cross) > nameWeight(straight) ? cross : straight;
}

const has = (list: readonly string[], set: ReadonlySet<string>) => list.some((x) => set.has(x));

/**
 * The email level of a row against a person's provider-folded emails when no hash agrees: near as the
 * `el:` / `ed:` blocks would find it (same local part elsewhere; or same domain, the exact full name, local
 * parts within EMAIL_NEAR_MAX_EDITS). The index caps those blocks at COMMON_BLOCK_MAX persons; this does not.
 */
function emailNear(row: NormalizedRecord, c: CandidateAttributes): boolean {
  const fullName = row.name.first !== null && row.name.first === c.firstName && row.name.last !== null && row.name.last === c.lastName;
  const split = (e: string) => {
    const at = e.lastIndexOf('@');
    return [e.slice(0, at), e.slice(at + 1)] as const;
  };
  return row.emails.some((e) => {
    const [local, domain] = split(e.matchKey);
    return (c.emailKeys ?? []).some((g) => {
      const [gl, gd] = split(g);
      return (local.length >= EMAIL_LOCAL_MIN && gl === local) || (fullName && gd === domain && emailLocalNear(local, gl));
    });
  });
}

/**
 * m_person.house of a candidate, as match-index.ts computes it: the lexicographically least house number of its
 * current addresses in its ZIP, as "<zip5>:<house>" (houseZipOf), or null.
 */
function currentHouseZip(c: CandidateAttributes): string | null {
  const houses = c.addresses
    .filter((a) => a.isCurrent)
    .map((a) => houseZipOf(a.key))
    .filter((h) => h !== null && h.startsWith(`${c.zip5}:`));
  return houses.length ? houses.sort()[0]! : null;
}

export function compareRecord(row: NormalizedRecord, c: CandidateAttributes): Features {
  const emails = new Set(c.emailHashes);
  const phones = new Set(c.phoneHashes);
  const email =
    row.emailHashes.length === 0 ? ID.missing : has(row.emailHashes, emails) ? ID.agree : emailNear(row, c) ? EMAIL.near : ID.disagree;
  const phone = row.phoneHashes.length === 0 ? ID.missing : has(row.phoneHashes, phones) ? ID.agree : ID.disagree;
  const variants = row.name.first ? nameVariants(row.name.first) : [];
  const zips = localityZips(row);
  let address: number = row.addresses.length === 0 && zips.length === 0 ? ADDR.missing : ADDR.disagree;
  const better = (lvl: number) => {
    if (lvl !== ADDR.missing && (address === ADDR.missing || address === ADDR.disagree || lvl < address)) address = lvl;
  };
  for (const k of [...row.addressKeys, ...row.cityAddressKeys]) {
    if (!k) continue;
    for (const a of c.addresses) {
      if (a.key !== k.key) continue;
      better(!a.isCurrent ? ADDR.history : (a.unit ?? '') === (k.unit ?? '') ? ADDR.unit : ADDR.street);
    }
  }
  if (address === ADDR.disagree && c.zip5) {
    const house = currentHouseZip(c);
    if (house !== null && rowHouseZips(row).includes(house)) address = ADDR.house;
    else if (zips.includes(c.zip5)) address = ADDR.zip;
  } else if (address === ADDR.disagree) {
    // A person without a ZIP (an imported graph's, without geography) is not known to live elsewhere.
    address = ADDR.missing;
  }
  return { email, phone, ...compareNames(row, variants, c), dob: compareDob(comparedDob(row), c.dob), address };
}

// ---- SQL twins -----------------------------------------------------------------------------

/** SQL first-name level; `vars` is a VARCHAR[] of nickname variants (or NULL for crosswise). */
export function firstSql(input: string, graph: string, vars: string | null, nick: string | null): string {
  const nickname = vars ? `WHEN list_contains(${vars}, ${graph}) OR ${input} = ${nick} THEN ${FIRST.nickname}` : '';
  return `CASE WHEN ${input} IS NULL OR ${graph} IS NULL THEN ${FIRST.missing}
    WHEN ${input} = ${graph} THEN ${FIRST.exact} ${nickname}
    WHEN length(${input}) = 1 THEN CASE WHEN ${input} = left(${graph}, 1) THEN ${FIRST.initial} ELSE ${FIRST.disagree} END
    WHEN jaro_winkler_similarity(${input}, ${graph}) >= ${FUZZY_NAME} THEN ${FIRST.fuzzy}
    WHEN jaro_winkler_similarity(${input}, ${graph}) >= ${FUZZY_NAME_LOW} THEN ${FIRST.fuzzyLow} ELSE ${FIRST.disagree} END`;
}

/** SQL surname level; `inputSx` / `graphSx`: the two names' Soundex codes (keys.ts SOUNDEX_SQL, staged or stored). */
export function lastSql(input: string, graph: string, inputSx: string, graphSx: string): string {
  return `CASE WHEN ${input} IS NULL OR ${graph} IS NULL THEN ${LAST.missing} WHEN ${input} = ${graph} THEN ${LAST.exact}
    WHEN jaro_winkler_similarity(${input}, ${graph}) >= ${FUZZY_NAME} THEN ${LAST.fuzzy}
    WHEN length(${input}) > 1 AND ${inputSx} = ${graphSx} THEN ${LAST.phonetic}
    WHEN length(${input}) > 1 AND jaro_winkler_similarity(${input}, ${graph}) >= ${FUZZY_NAME_LOW} THEN ${LAST.fuzzyLow} ELSE ${LAST.disagree} END`;
}

/** SQL twin of digitsOff over integer expressions. */
function digitsOffSql(a: string, b: string, n: number): string {
  return Array.from({ length: n }, (_, k) => `((${a}) // ${10 ** k} % 10 <> (${b}) // ${10 ** k} % 10)::INTEGER`).join(' + ');
}

/** SQL twin of compareDob for a partial input dob (VARCHAR "YYYY-MM" or "YYYY") against a DATE. */
export function dobPartSql(part: string, g: string): string {
  return `CASE WHEN ${g} IS NULL THEN ${DOB.missing}
    WHEN length(${part}) = 7 THEN CASE WHEN strftime(${g}, '%Y-%m') = ${part} THEN ${DOB.month} ELSE ${DOB.disagree} END
    WHEN strftime(${g}, '%Y') = ${part} THEN ${DOB.year} ELSE ${DOB.disagree} END`;
}

/** SQL twin of compareDob over two DATE expressions. */
export function dobSql(i: string, g: string): string {
  const [iy, im, id, gy, gm, gd] = [`year(${i})`, `month(${i})`, `day(${i})`, `year(${g})`, `month(${g})`, `day(${g})`];
  return `CASE WHEN ${i} IS NULL OR ${g} IS NULL THEN ${DOB.missing} WHEN ${i} = ${g} THEN ${DOB.exact}
    WHEN ${digitsOffSql(iy, gy, 4)} + ${digitsOffSql(im, gm, 2)} + ${digitsOffSql(id, gd, 2)} = 1
      OR (${im} = ${gm} AND ${id} = ${gd} AND abs(${iy} - ${gy}) IN (1, 10)) THEN ${DOB.digit}
    WHEN ${iy} = ${gy} AND ${im} = ${gd} AND ${id} = ${gm} THEN ${DOB.swap}
    WHEN ${iy} = ${gy} AND ${im} = ${gm} THEN ${DOB.yearMonth}
    ELSE ${DOB.disagree} END`;
}
