/**
 * From scored candidates to one answer per row: level, type, person, household, confidence.
 *
 * Evidence groups: name (first and last agree, straight or crosswise; a surname agrees exact, fuzzy or
 * phonetic), digital (email or phone hash agrees; a near email beside an agreeing name), address (current
 * residence key, or a past one = history), dob (exact).
 *
 * I  individual: p >= I_THRESHOLD and
 *      - name agrees plus at least one non-name group (digital, address, history, dob), or
 *      - surname agrees with first name missing/initial plus two non-name groups, or
 *      - digital plus address/history/dob with no name disagreement (row without a name).
 *      - the exact first and last name + a near dob (one digit off, day-month swapped, same year and
 *        month: types.ts dobNear) + the same ZIP, nothing disagreeing, at
 *        p >= I_PARTIAL_DOB_THRESHOLD (name_partial_dob_zip: a ZIP-only list row with a dob typo).
 *    A common name alone (name + ZIP) therefore never reaches I, whatever its weight.
 *    If another person within AMBIGUITY_MARGIN also qualifies, the row is not an I match:
 *    same household -> H, otherwise the row falls to the lower levels. A person the row's locality tells
 *    apart is no rival (placeSeparates): every other field at the same level, the best living in a ZIP the
 *    row names, the other in a known ZIP outside them all.
 * H  household: surname agrees at a current residence but not a single member (first name
 *    missing or different), or an ambiguous I inside one household, or an I match demoted
 *    because I is not allowed. Returns the household key and the household's reference person
 *    (its lowest person key: the head in generated graphs), so the output still carries a tier-01 id.
 * D  digital: an email or phone hash agrees without the corroboration I needs.
 * A  address: a current residence matches the row's address, with no person-level agreement;
 *    returns that residence's household and reference person.
 * S  spatial: none of the above; the residence nearest the row's ZIP centroid (residential), or a
 *    person working in that ZIP (work); auto = residential, else work.
 *
 * matchLevels: the row gets the highest allowed level it qualifies for, in the order
 * I > H > D > A > S (an I match also qualifies for H, for D when digital agrees, for A when the
 * address agrees; every row with a known ZIP qualifies for S). No allowed level -> unmatched.
 */
import { AMBIGUITY_MARGIN, D_THRESHOLD, I_PARTIAL_DOB_THRESHOLD, I_THRESHOLD, LEVEL_CONFIDENCE } from './model.ts';
import { ADDR, DOB, dobNear, EMAIL, FIRST, ID, LAST, type Features, type MatchLevel, type MatchType, type SpatialMode } from './types.ts';

export interface ScoredCandidate {
  personKey: bigint;
  householdKey: bigint | null;
  /** Household reference person (lowest person key of the household). */
  hhRef: bigint | null;
  features: Features;
  weight: number;
  probability: number;
}

export interface SpatialAnchor {
  resPerson: bigint | null;
  resHousehold: bigint | null;
  workPerson: bigint | null;
  workHousehold: bigint | null;
}

export interface Decision {
  personKey: bigint;
  householdKey: bigint | null;
  level: MatchLevel;
  type: MatchType;
  confidence: number;
}

const firstAgrees = (f: Features) => f.first === FIRST.exact || f.first === FIRST.nickname || f.first === FIRST.fuzzy;
const lastAgrees = (f: Features) => f.last === LAST.exact || f.last === LAST.fuzzy || f.last === LAST.phonetic;
const digital = (f: Features) => f.email === ID.agree || f.phone === ID.agree;
const addrCurrent = (f: Features) => f.address === ADDR.unit || f.address === ADDR.street;
/** The candidate lives at the row's address or in a ZIP the row names (street, house number + ZIP, or ZIP alone). */
const localityAgrees = (f: Features) => addrCurrent(f) || f.address === ADDR.house || f.address === ADDR.zip;

/**
 * Whether the row's locality tells `best` from `other`: the two agree with the row at the same level on every
 * field but the address, `best` lives in a ZIP the row names and `other` in a known ZIP outside all of them
 * (ADDR.disagree; a person without any ZIP is `missing`, never told apart). Two namesakes born the same day in
 * different ZIPs are the case: the priors weigh a ZIP agreement 0.5 and a disagreement -1.0 (model.ts), a gap
 * below AMBIGUITY_MARGIN, so the ZIP that tells them apart left the row unmatched (issue #31). Nothing of the
 * row speaks for `other` and its ZIP speaks against it; the fitted weights (decision 045) give the same answer.
 */
export function placeSeparates(best: Features, other: Features): boolean {
  return (
    other.address === ADDR.disagree &&
    localityAgrees(best) &&
    best.first === other.first &&
    best.last === other.last &&
    best.swapped === other.swapped &&
    best.dob === other.dob &&
    best.email === other.email &&
    best.phone === other.phone
  );
}

/** The I-level match type of a candidate, or null when its evidence is not person-level. */
export function individualType(c: Pick<ScoredCandidate, 'features' | 'probability'>, iThreshold = I_THRESHOLD): MatchType | null {
  const f = c.features;
  // A ZIP-only row whose dob is close but damaged (one digit off, day/month swapped, same year and month):
  // the exact full name, that dob and the ZIP together, nothing disagreeing (docs/decisions/020).
  if (
    dobNear(f.dob) &&
    f.address === ADDR.zip &&
    f.first === FIRST.exact &&
    f.last === LAST.exact &&
    !f.swapped &&
    f.email !== ID.disagree &&
    f.phone !== ID.disagree &&
    c.probability >= I_PARTIAL_DOB_THRESHOLD
  )
    return 'name_partial_dob_zip';
  if (c.probability < iThreshold) return null;
  const email = f.email === ID.agree;
  const phone = f.phone === ID.agree;
  const hist = f.address === ADDR.history;
  const dob = f.dob === DOB.exact;
  const name = firstAgrees(f) && lastAgrees(f);
  // A first name that is missing, an initial, or only in the lower Jaro-Winkler band: the surname needs two more groups;
  // so does an agreeing first name beside a surname only in the lower band.
  const partialName =
    (lastAgrees(f) && (f.first === FIRST.missing || f.first === FIRST.initial || f.first === FIRST.fuzzyLow)) ||
    (firstAgrees(f) && f.last === LAST.fuzzyLow);
  // A near email (one typo away, types.ts EMAIL) is the email only beside the person's own name (first exact or a
  // nickname, surname exact): never alone, never for D, never beside a second damaged field. The fitted weight of
  // near is high (a shared local part is rare between random persons), so the name is what keeps a stranger whose
  // local part another person also uses (JOHN SMITH's jsmith1987 vs JON SMYTH's) from I.
  const near = f.email === EMAIL.near && (f.first === FIRST.exact || f.first === FIRST.nickname) && f.last === LAST.exact;
  // The house number + ZIP of the current address with the street spelled otherwise: the address, beside the name.
  const house = f.address === ADDR.house && firstAgrees(f) && lastAgrees(f);
  const others = Number(digital(f) || near) + Number(addrCurrent(f) || hist || house) + Number(dob);
  if (name || partialName) {
    if (others < (name ? 1 : 2)) return null;
    if (email || (near && !phone)) return 'email+name';
    if (phone) return 'phone+name';
    if (addrCurrent(f) || house) return 'name_address';
    if (hist) return 'address_history';
    return 'name_dob';
  }
  const conflict = f.first === FIRST.disagree || f.last === LAST.disagree;
  if (!digital(f) || conflict || others < 2) return null;
  const id = email ? 'email' : 'phone';
  return addrCurrent(f) || hist ? `${id}+address` : `${id}+dob`;
}

/**
 * Whether a candidate with these features can take part in any decision of decideRow, whatever its weight: as I
 * (individualType at probability 1, the most it can have), H (a current residence, which H needs), D (an agreeing
 * email or phone) or A (a current residence). decideRow reads nothing else of a candidate, so one that cannot is
 * dropped before the per-row shortlist on both paths (point.ts, packed-rows.ts; the file path in SQL,
 * candidates.ts): most blocked candidates are strangers who share a dob and an initial, or a surname and a ZIP.
 */
export function canQualify(f: Features): boolean {
  return digital(f) || addrCurrent(f) || individualType({ features: f, probability: 1 }, 1) !== null;
}

function digitalType(f: Features): MatchType {
  if (f.email === ID.agree && f.phone === ID.agree) return 'email+phone';
  return f.email === ID.agree ? 'email' : 'phone';
}

const householdDecision = (c: ScoredCandidate, confidence: number, type: MatchType = 'household'): Decision => ({
  personKey: c.hhRef ?? c.personKey,
  householdKey: c.householdKey,
  level: 'H',
  type,
  confidence,
});
const atHousehold = (c: ScoredCandidate) => addrCurrent(c.features) && lastAgrees(c.features) && c.householdKey !== null;
const digitalAgrees = (c: ScoredCandidate) => digital(c.features) && c.probability >= D_THRESHOLD;
const atResidence = (c: ScoredCandidate) => addrCurrent(c.features) && c.householdKey !== null;
const LEVEL_ORDER: readonly MatchLevel[] = ['I', 'H', 'D', 'A', 'S'];

/**
 * Decides one row. `candidates` must be sorted by weight, best first. `allowed` is the
 * matchLevels option. `iThreshold`: the minimum probability of I (I_THRESHOLD, or the one fitted
 * with a release's parameters, params.ts). Returns null when nothing allowed qualifies.
 * (Loops and module-level predicates, no closures: the file path calls it for most of a million rows.)
 */
export function decideRow(
  candidates: readonly ScoredCandidate[],
  allowed: ReadonlySet<MatchLevel>,
  spatialMode: SpatialMode,
  anchor: SpatialAnchor | null,
  iThreshold = I_THRESHOLD,
): Decision | null {
  const options: Decision[] = [];

  // I: the best person-level candidate, unless a different person is (nearly) as good.
  let best: ScoredCandidate | null = null;
  let bestType: MatchType | null = null;
  let rival: ScoredCandidate | null = null;
  for (const c of candidates) {
    const type = individualType(c, iThreshold);
    if (type === null) continue;
    if (best === null) {
      best = c;
      bestType = type;
    } else if (c.personKey !== best.personKey && c.weight >= best.weight - AMBIGUITY_MARGIN && !placeSeparates(best.features, c.features)) {
      rival = c;
      break;
    }
  }
  if (best) {
    if (!rival) {
      options.push({
        personKey: best.personKey,
        householdKey: best.householdKey,
        level: 'I',
        type: bestType!,
        confidence: best.probability,
      });
      if (best.householdKey !== null) options.push(householdDecision(best, best.probability));
    } else if (rival.householdKey !== null && rival.householdKey === best.householdKey) {
      options.push(householdDecision(best, Math.max(best.probability, LEVEL_CONFIDENCE.H)));
    }
  }
  // H: surname at a current residence without a specific member.
  const hh = candidates.find(atHousehold);
  if (hh) options.push(householdDecision(hh, LEVEL_CONFIDENCE.H));
  // D: the best candidate whose email or phone agrees.
  const dig = candidates.find(digitalAgrees);
  if (dig)
    options.push({
      personKey: dig.personKey,
      householdKey: dig.householdKey,
      level: 'D',
      type: digitalType(dig.features),
      confidence: dig.probability,
    });
  // A: a current residence at the row's address.
  const addr = candidates.find(atResidence);
  if (addr)
    options.push({
      personKey: addr.hhRef ?? addr.personKey,
      householdKey: addr.householdKey,
      level: 'A',
      type: 'address',
      confidence: LEVEL_CONFIDENCE.A,
    });
  // S: spatial anchor for the row's ZIP.
  if (anchor) {
    const res =
      anchor.resPerson !== null && spatialMode !== 'work'
        ? {
            personKey: anchor.resPerson,
            householdKey: anchor.resHousehold,
            type: 'spatial_residential' as const,
            confidence: LEVEL_CONFIDENCE.spatial_residential,
          }
        : null;
    const work =
      anchor.workPerson !== null && spatialMode !== 'residential'
        ? {
            personKey: anchor.workPerson,
            householdKey: anchor.workHousehold,
            type: 'spatial_work' as const,
            confidence: LEVEL_CONFIDENCE.spatial_work,
          }
        : null;
    const s = spatialMode === 'work' ? work : (res ?? work);
    if (s) options.push({ ...s, level: 'S' });
  }
  for (const level of LEVEL_ORDER) {
    if (!allowed.has(level)) continue;
    for (const d of options) if (d.level === level) return d;
  }
  return null;
}
