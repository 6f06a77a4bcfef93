/**
 * The hardened labelled set (issue #15): graph persons rendered the way CRM exports carry them -
 * fields missing in realistic proportions (about half the rows without a street, a fifth without
 * any geography), several kinds of damage per row, and people absent from the graph. Each row
 * lists its damage kinds so recall can be reported per kind; `identifies` is the oracle over the
 * true record: the row keeps both names plus at least one of dob / email / phone / street address,
 * and the true values of the fields it keeps belong to exactly one graph person.
 *
 * Rates (per row unless said): email 40%, phone 40%, dob 55%; geography: street + ZIP 35% (one of its
 * last three ZIP digits mistyped in a tenth of them, the street name misspelled in a tenth), street +
 * city + state without a ZIP 10% (the city misspelled in a fifth of them), ZIP only 25%, city + state
 * only 10%, none 20%. Damage: nickname 15% (when the name has one), first-name
 * typo 7%, surname typo 7%, first/last swapped 3%, middle initial inside first_name 4%, case and
 * spacing noise 30%, dob damaged 12% of dobs (day/month swapped, day digit off, year off by one) and 8% of the
 * others given without the day ("03/1985", a quarter of them the year alone),
 * old address or old ZIP 12% of rows with geography, email typo 8% of emails, phone digit typo 4%
 * of phones; absent people 8%.
 */
import { householdOf, NICKS, rng, sampleGraphPersons, title, typo, type GraphPerson } from './labelled-set.ts';
import type { MatchWarehouse } from './matcher.ts';

export type Damage =
  | 'nickname'
  | 'first_typo'
  | 'last_typo'
  | 'swap'
  | 'middle_initial'
  | 'case_noise'
  | 'dob_day_month'
  | 'dob_day_digit'
  | 'dob_year'
  | 'dob_partial'
  | 'moved'
  | 'email_typo'
  | 'phone_typo'
  | 'zip_typo'
  | 'street_typo'
  | 'no_street'
  | 'no_zip'
  | 'city_typo'
  | 'city_only'
  | 'no_geography';

export const DAMAGE_KINDS: readonly Damage[] = [
  'nickname',
  'first_typo',
  'last_typo',
  'swap',
  'middle_initial',
  'case_noise',
  'dob_day_month',
  'dob_day_digit',
  'dob_year',
  'dob_partial',
  'moved',
  'email_typo',
  'phone_typo',
  'zip_typo',
  'street_typo',
  'no_street',
  'no_zip',
  'city_typo',
  'city_only',
  'no_geography',
];

export interface HardenedRow {
  record: Record<string, unknown>;
  damage: Damage[];
  personKey: bigint | null;
  householdKey: bigint | null;
  /** Oracle: the row's kept fields (true values) identify exactly one graph person. */
  identifies: boolean;
}

/** The true values behind a row's kept fields (what the oracle counts persons by). */
interface Truth {
  i: number;
  first: string;
  last: string;
  dob: string | null;
  zip: string | null;
  a1: string | null;
  email: string | null;
  phone: string | null;
  /** City and state of a street address given without its ZIP. */
  city?: string;
  state?: string;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

function damageDob(dob: string, r: () => number): { dob: string; kind: Damage } | null {
  const [y, m, d] = dob.split('-').map(Number) as [number, number, number];
  const k = r();
  if (k < 0.34 && d <= 12 && d !== m) return { dob: `${y}-${pad2(d)}-${pad2(m)}`, kind: 'dob_day_month' };
  if (k < 0.67) {
    const nd = d >= 20 ? d - 10 : d + (d % 10 === 9 ? -1 : 1);
    return { dob: `${y}-${pad2(m)}-${pad2(nd)}`, kind: 'dob_day_digit' };
  }
  if (m === 2 && d === 29) return null;
  return { dob: `${y + (r() < 0.5 ? -1 : 1)}-${pad2(m)}-${pad2(d)}`, kind: 'dob_year' };
}

function emailTypo(e: string, r: () => number): string {
  const [local, dom] = e.split('@') as [string, string];
  if (local.length < 3) return `${local}x@${dom}`;
  const i = 1 + Math.floor(r() * (local.length - 1));
  return `${local.slice(0, i)}${'aeinorst'[Math.floor(r() * 8)]}${local.slice(i + 1)}@${dom}`;
}

function phoneTypo(p: string, r: () => number): string {
  const i = 5 + Math.floor(r() * (p.length - 5));
  return p.slice(0, i) + String((Number(p[i]) + 1 + Math.floor(r() * 8)) % 10) + p.slice(i + 1);
}

function zipTypo(zip: string, r: () => number): string {
  const i = 2 + Math.floor(r() * 3);
  return zip.slice(0, i) + String((Number(zip[i]) + 1 + Math.floor(r() * 8)) % 10) + zip.slice(i + 1);
}

/** A typo in the longest word of the street name ("12 MAPLE AVE" -> "12 MAPEL AVE"); a PO box or a one-word line stays. */
function streetTypo(a1: string, r: () => number): string {
  const words = a1.split(' ');
  if (words.length < 2 || !/^[0-9]/.test(words[0]!) || words[0] === 'PO') return a1;
  let at = 1;
  for (let i = 2; i < words.length; i++) if (words[i]!.length > words[at]!.length) at = i;
  if (words[at]!.length < 4) return a1;
  words[at] = typo(words[at]!, r).toUpperCase();
  return words.join(' ');
}

const noise = (s: string, r: () => number) => (r() < 0.5 ? s.toUpperCase() : ` ${s.toLowerCase()}  `);

/** Renders `n` rows from the release attached as `g` (about 8% absent people), then runs the oracle. */
export async function generateHardenedSet(wh: MatchWarehouse, g: string, n: number, seed: number): Promise<HardenedRow[]> {
  const persons: GraphPerson[] = await sampleGraphPersons(wh, g, n, seed);
  const r = rng(seed * 31 + 5);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: HardenedRow[] = [];
  const truths: Truth[] = [];
  persons.forEach((p, idx) => {
    const rec: Record<string, unknown> = { row_id: `h${idx}` };
    if (r() < 0.08) {
      // Absent: this person's first name and maybe dob, another's surname (changed) and street with a new number, made-up contacts.
      const other = persons[(idx * 7919 + 13) % persons.length]!;
      Object.assign(rec, {
        first_name: title(p.first_name),
        last_name: title(typo(other.last_name, r) + 'S'),
        ...(r() < 0.5
          ? { address_1: `${1 + Math.floor(r() * 9000)} ${other.address_1.split(' ').slice(1).join(' ')}`, zip: other.zip5 }
          : { zip: other.zip5 }),
        ...(r() < 0.4 ? { email: `${p.first_name.toLowerCase()}.x${Math.floor(r() * 1e6)}@example.net` } : {}),
        ...(r() < 0.4 ? { phone: `+1555${String(Math.floor(r() * 1e7)).padStart(7, '0')}` } : {}),
        ...(r() < 0.55 ? { dob: p.dob } : {}),
      });
      out.push({ record: rec, damage: [], personKey: null, householdKey: null, identifies: false });
      return;
    }
    const damage: Damage[] = [];
    const t: Truth = { i: idx, first: p.first_name, last: p.last_name, dob: null, zip: null, a1: null, email: null, phone: null };
    let first = title(p.first_name);
    let last = title(p.last_name);
    const nick = p.nickname ?? NICKS[p.first_name]?.[0];
    if (nick && r() < 0.15) {
      first = title(nick);
      damage.push('nickname');
    } else if (r() < 0.07) {
      first = title(typo(p.first_name, r));
      damage.push('first_typo');
    }
    if (r() < 0.07) {
      last = title(typo(p.last_name, r));
      damage.push('last_typo');
    }
    if (p.middle_name && r() < 0.04) {
      first = `${first} ${p.middle_name[0]}`;
      damage.push('middle_initial');
    }
    if (r() < 0.3) {
      first = noise(first, r);
      last = noise(last, r);
      damage.push('case_noise');
    }
    if (r() < 0.03) {
      [first, last] = [last, first];
      damage.push('swap');
    }
    Object.assign(rec, { first_name: first, last_name: last });

    if (p.dob && r() < 0.55) {
      t.dob = p.dob;
      const bad = r() < 0.12 ? damageDob(p.dob, r) : null;
      rec.dob = bad ? bad.dob : p.dob;
      if (bad) damage.push(bad.kind);
      // A twelfth of the rest without the day ("03/1985", or the year alone): not a whole dob for the oracle.
      else if (r() < 0.08) {
        const [y, m] = p.dob.split('-') as [string, string];
        rec.dob = r() < 0.75 ? `${m}/${y}` : y;
        t.dob = null;
        damage.push('dob_partial');
      }
    }
    const emails = p.emails ?? [];
    if (emails.length && r() < 0.4) {
      t.email = pick(emails);
      rec.email = t.email;
      if (r() < 0.08) {
        rec.email = emailTypo(t.email, r);
        damage.push('email_typo');
      }
    }
    const phones = p.phones ?? [];
    if (phones.length && r() < 0.4) {
      t.phone = pick(phones);
      rec.phone = t.phone;
      if (r() < 0.04) {
        rec.phone = phoneTypo(t.phone, r);
        damage.push('phone_typo');
      }
    }
    const geo = r();
    const old = p.past?.[0];
    const moved = geo < 0.7 && old && r() < 0.12;
    const a = moved
      ? { a1: old.a1, a2: old.a2, city: old.city, state: old.state, zip: old.zip }
      : { a1: p.address_1, a2: p.address_2, city: p.city, state: p.state, zip: p.zip5 };
    if (moved) damage.push('moved');
    if (geo < 0.35) {
      // A tenth of these with one ZIP digit mistyped (the street and city right), a tenth with the street misspelled.
      const zip = r() < 0.1 ? zipTypo(a.zip, r) : a.zip;
      const a1 = r() < 0.1 ? streetTypo(a.a1, r) : a.a1;
      Object.assign(rec, { address_1: title(a1), address_2: a.a2, city: title(a.city), state: a.state, zip });
      t.a1 = a.a1;
      t.zip = a.zip;
      if (zip !== a.zip) damage.push('zip_typo');
      if (a1 !== a.a1) damage.push('street_typo');
    } else if (geo < 0.45) {
      // A street address with city and state but no ZIP (a common CRM export), the city sometimes misspelled.
      const cityTypo = a.city.length > 4 && r() < 0.2;
      Object.assign(rec, { address_1: title(a.a1), address_2: a.a2, city: title(cityTypo ? typo(a.city, r) : a.city), state: a.state });
      Object.assign(t, { a1: a.a1, city: a.city, state: a.state });
      damage.push('no_zip');
      if (cityTypo) damage.push('city_typo');
    } else if (geo < 0.7) {
      Object.assign(rec, { zip: a.zip, ...(r() < 0.5 ? { city: title(a.city), state: a.state } : {}) });
      t.zip = a.zip;
      damage.push('no_street');
    } else if (geo < 0.8) {
      Object.assign(rec, { city: title(p.city), state: p.state });
      damage.push('city_only');
    } else {
      damage.push('no_geography');
    }
    out.push({ record: rec, damage, personKey: BigInt(p.person_key), householdKey: householdOf(p), identifies: false });
    if (t.dob || t.email || t.phone || t.a1) truths.push(t);
  });
  for (const i of await oracleUnique(wh, g, truths)) out[i]!.identifies = true;
  return out;
}

const sqlStr = (s: string | null) => (s === null ? 'NULL' : `'${s.replace(/'/g, "''")}'`);

/** Rows whose true kept values belong to exactly one graph person. */
async function oracleUnique(wh: MatchWarehouse, g: string, truths: readonly Truth[]): Promise<number[]> {
  const out: number[] = [];
  for (let s = 0; s < truths.length; s += 2000) {
    const values = truths
      .slice(s, s + 2000)
      .map(
        (t) =>
          `(${t.i}, ${sqlStr(t.first)}, ${sqlStr(t.last)}, ${sqlStr(t.dob)}, ${sqlStr(t.zip)}, ${sqlStr(t.a1)}, ${sqlStr(t.email)}, ${sqlStr(t.phone)}, ${sqlStr(t.city ?? null)}, ${sqlStr(t.state ?? null)})`,
      );
    const rows = await wh.query(`
      WITH t AS (SELECT * FROM (VALUES ${values.join(', ')}) v(i, first, last, dob, zip, a1, email, phone, city, state))
      SELECT t.i FROM t JOIN ${g}.persons p ON p.first_name = t.first AND p.last_name = t.last
      WHERE (t.dob IS NULL OR p.dob = t.dob::DATE)
        AND (t.zip IS NULL OR EXISTS (SELECT 1 FROM ${g}.addresses a WHERE a.person_key = p.person_key AND a.zip5 = t.zip
              AND (t.a1 IS NULL OR a.address_1 = t.a1)))
        AND (t.city IS NULL OR EXISTS (SELECT 1 FROM ${g}.addresses a WHERE a.person_key = p.person_key AND a.city = t.city
              AND a.state = t.state AND a.address_1 = t.a1))
        AND (t.email IS NULL OR EXISTS (SELECT 1 FROM ${g}.emails e WHERE e.person_key = p.person_key AND e.email = t.email))
        AND (t.phone IS NULL OR EXISTS (SELECT 1 FROM ${g}.phones f WHERE f.person_key = p.person_key AND f.phone = t.phone))
      GROUP BY t.i HAVING count(DISTINCT p.person_key) = 1`);
    for (const row of rows) out.push(Number(row.i));
  }
  return out;
}

/**
 * `n` rows of made-up people at made-up streets in real ZIPs (`zips`), without email, phone or
 * dob: nothing in them is in the graph, so every level must leave them unmatched.
 */
export function junkRows(zips: readonly string[], n: number, seed: number): Record<string, unknown>[] {
  const r = rng(seed);
  const syl = ['zor', 'bel', 'quin', 'vax', 'trum', 'plo', 'keth', 'dra', 'mur', 'snif', 'yal', 'gorp'];
  const word = (k: number) => title(Array.from({ length: k }, () => syl[Math.floor(r() * syl.length)]).join(''));
  const suffix = ['St', 'Ave', 'Rd', 'Ln', 'Ct', 'Way'];
  return Array.from({ length: n }, (_, i) => ({
    row_id: `junk${i}`,
    first_name: word(2),
    last_name: word(3),
    address_1: `${1 + Math.floor(r() * 9000)} ${word(2)} ${suffix[Math.floor(r() * suffix.length)]}`,
    zip: zips[Math.floor(r() * zips.length)],
  }));
}
