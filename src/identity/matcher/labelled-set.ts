/**
 * A labelled match set drawn from a release: real graph persons rendered as customer-list rows
 * with realistic damage, plus people who are not in the graph at all. Used to fit the model
 * (fit.ts), to measure it (bench/match-quality.ts) and by the integration tests.
 */
import { seededRandom } from '../../lib/random.ts';
import type { MatchWarehouse } from './matcher.ts';

export type Scenario =
  | 'clean'
  | 'typo'
  | 'nickname'
  | 'swap'
  | 'moved'
  | 'unit_variant'
  | 'phone_format'
  | 'email_variant'
  | 'email_only'
  | 'phone_only'
  | 'name_zip_only'
  | 'name_dob'
  | 'missing_fields'
  | 'absent';

export interface LabelledRow {
  record: Record<string, unknown>;
  scenario: Scenario;
  /** Truth: the person the row describes (null: not in the graph). */
  personKey: bigint | null;
  householdKey: bigint | null;
}

export interface GraphPerson {
  person_key: bigint;
  household_key: bigint | null;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  nickname: string | null;
  dob: string | null;
  address_1: string;
  address_2: string | null;
  city: string;
  state: string;
  zip5: string;
  emails: string[] | null;
  phones: string[] | null;
  past: { a1: string; a2: string | null; city: string; state: string; zip: string }[] | null;
}

/** The seeded PRNG of every labelled set (src/lib/random.ts). */
export const rng = seededRandom;

export const NICKS: Record<string, string[]> = {
  ROBERT: ['Bob', 'Rob', 'Bobby'],
  WILLIAM: ['Bill', 'Will', 'Billy'],
  JAMES: ['Jim', 'Jimmy'],
  JOHN: ['Jack', 'Johnny'],
  RICHARD: ['Rick', 'Dick'],
  MICHAEL: ['Mike'],
  ELIZABETH: ['Liz', 'Beth', 'Betty'],
  MARGARET: ['Peggy', 'Maggie'],
  JENNIFER: ['Jen', 'Jenny'],
  CHRISTOPHER: ['Chris'],
  JOSEPH: ['Joe'],
  THOMAS: ['Tom'],
  DANIEL: ['Dan'],
  PATRICIA: ['Pat', 'Patty'],
  KATHERINE: ['Kate', 'Kathy'],
  DAVID: ['Dave'],
  ANTHONY: ['Tony'],
  MATTHEW: ['Matt'],
  REBECCA: ['Becky'],
  SUSAN: ['Sue'],
};

export function typo(s: string, r: () => number): string {
  if (s.length < 4) return s + 'E';
  const i = 1 + Math.floor(r() * (s.length - 2));
  const k = r();
  if (k < 0.34) return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2); // transposition
  if (k < 0.67) return s.slice(0, i) + s.slice(i + 1); // deletion
  return s.slice(0, i) + 'AEIOURSTN'[Math.floor(r() * 9)] + s.slice(i + 1); // substitution
}

export const title = (s: string) => s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

function phoneFormat(e164: string, r: () => number): string {
  const d = e164.slice(2);
  const f = Math.floor(r() * 4);
  return f === 0
    ? `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`
    : f === 1
      ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6)}`
      : f === 2
        ? `1-${d.slice(0, 3)}-${d.slice(3, 6)}-${d.slice(6)}`
        : d;
}

function emailVariant(e: string, r: () => number): string {
  const [local, dom] = e.split('@') as [string, string];
  if (dom === 'gmail.com')
    return r() < 0.5 ? `${local.replace(/\./g, '')}+news@${dom}` : `${local.split('').join('.')}@${dom}`.toUpperCase();
  return e.toUpperCase();
}

function unitVariant(a2: string | null, r: () => number): string | null {
  if (!a2) return null;
  const n = a2.split(' ').pop()!;
  const k = r();
  return k < 0.3 ? `#${n}` : k < 0.6 ? `Apt. ${n}` : k < 0.8 ? `Unit ${n}` : null;
}

/** `n` adults of the release attached as `g`, in a seed-determined order, with emails, phones and past addresses. */
export async function sampleGraphPersons(wh: MatchWarehouse, g: string, n: number, seed: number): Promise<GraphPerson[]> {
  return (await wh.query(`
    -- Persons the rows can be rendered from: an imported graph may lack names or a street (every generated person has them).
    WITH s AS (SELECT * FROM ${g}.persons WHERE age >= 18 AND first_name IS NOT NULL AND last_name IS NOT NULL
      AND address_1 IS NOT NULL AND city IS NOT NULL AND state IS NOT NULL AND zip5 IS NOT NULL ORDER BY hash(person_key, ${seed}) LIMIT ${n})
    SELECT s.person_key, s.household_key, s.first_name, s.middle_name, s.last_name, s.nickname, strftime(s.dob, '%Y-%m-%d') AS dob,
      s.address_1, s.address_2, s.city, s.state, s.zip5,
      (SELECT list(email ORDER BY email) FROM ${g}.emails e WHERE e.person_key = s.person_key) AS emails,
      (SELECT list(phone ORDER BY phone) FROM ${g}.phones ph WHERE ph.person_key = s.person_key) AS phones,
      (SELECT list({a1: address_1, a2: address_2, city: city, state: state, zip: zip5} ORDER BY moved_in DESC) FROM ${g}.addresses a
        WHERE a.person_key = s.person_key AND NOT a.is_current) AS past
    FROM s ORDER BY hash(s.person_key, ${seed})`)) as unknown as GraphPerson[];
}

/** The person's household key (none in an imported graph without household keys). */
export const householdOf = (p: GraphPerson): bigint | null => (p.household_key === null ? null : BigInt(p.household_key));

/** Samples adults from the release attached as `g` and renders `n` rows (about 8% absent people). */
export async function generateLabelledSet(wh: MatchWarehouse, g: string, n: number, seed: number): Promise<LabelledRow[]> {
  const persons = await sampleGraphPersons(wh, g, n, seed);
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const scenarios: Scenario[] = [
    'clean',
    'clean',
    'typo',
    'nickname',
    'swap',
    'moved',
    'unit_variant',
    'phone_format',
    'email_variant',
    'email_only',
    'phone_only',
    'name_zip_only',
    'name_dob',
    'missing_fields',
  ];
  const out: LabelledRow[] = [];
  persons.forEach((p, idx) => {
    const absent = r() < 0.08;
    let scenario: Scenario = absent ? 'absent' : pick(scenarios);
    const rec: Record<string, unknown> = { row_id: `r${idx}` };
    const emails = p.emails ?? [];
    const phones = p.phones ?? [];
    if (absent) {
      // A different person: first name and dob of this one, surname and address of another,
      // made-up email and phone; never a graph identity.
      const other = persons[(idx * 7919 + 13) % persons.length]!;
      Object.assign(rec, {
        first_name: title(p.first_name),
        last_name: title(typo(other.last_name, r) + 'S'),
        address_1: `${1 + Math.floor(r() * 9000)} ${other.address_1.split(' ').slice(1).join(' ')}`,
        zip: other.zip5,
        email: `${p.first_name.toLowerCase()}.x${Math.floor(r() * 1e6)}@example.net`,
        phone: `+1555${String(Math.floor(r() * 1e7)).padStart(7, '0')}`,
        dob: r() < 0.5 ? p.dob : null,
      });
      out.push({ record: rec, scenario, personKey: null, householdKey: null });
      return;
    }
    const base = () => {
      rec.first_name = title(p.first_name);
      rec.last_name = title(p.last_name);
    };
    const addr = () =>
      Object.assign(rec, { address_1: title(p.address_1), address_2: p.address_2, city: title(p.city), state: p.state, zip: p.zip5 });
    const email = () => {
      if (emails.length) rec.email = pick(emails);
    };
    const phone = () => {
      if (phones.length) rec.phone = pick(phones);
    };
    switch (scenario) {
      case 'clean':
        base();
        addr();
        if (r() < 0.6) email();
        if (r() < 0.5) phone();
        if (r() < 0.4) rec.dob = p.dob;
        break;
      case 'typo':
        base();
        addr();
        if (r() < 0.5) rec.first_name = title(typo(p.first_name, r));
        else rec.last_name = title(typo(p.last_name, r));
        if (r() < 0.3) rec.dob = p.dob;
        break;
      case 'nickname': {
        const nick = p.nickname ?? NICKS[p.first_name]?.[0];
        if (!nick) scenario = 'clean';
        base();
        rec.first_name = title(nick ?? p.first_name);
        addr();
        if (r() < 0.4) email();
        break;
      }
      case 'swap':
        rec.first_name = title(p.last_name);
        rec.last_name = title(p.first_name);
        addr();
        if (r() < 0.3) rec.dob = p.dob;
        break;
      case 'moved': {
        const old = p.past?.[0];
        if (!old) {
          scenario = 'clean';
          base();
          addr();
          break;
        }
        base();
        Object.assign(rec, { address_1: title(old.a1), address_2: old.a2, city: title(old.city), state: old.state, zip: old.zip });
        break;
      }
      case 'unit_variant':
        base();
        addr();
        rec.address_2 = unitVariant(p.address_2, r);
        break;
      case 'phone_format':
        base();
        if (phones.length) rec.phone = phoneFormat(pick(phones), r);
        if (r() < 0.5) rec.zip = p.zip5;
        break;
      case 'email_variant':
        base();
        if (emails.length) rec.email = emailVariant(pick(emails), r);
        break;
      case 'email_only':
        email();
        break;
      case 'phone_only':
        phone();
        break;
      // No street match: a made-up house number in the person's ZIP (a zip-only row has no address
      // the normalizer keeps), so the only evidence is name + ZIP.
      case 'name_zip_only':
        base();
        Object.assign(rec, { address_1: `${20000 + Math.floor(r() * 9000)} Nowhere Rd`, zip: p.zip5 });
        break;
      case 'name_dob':
        base();
        rec.dob = p.dob;
        rec.zip = p.zip5;
        break;
      case 'missing_fields':
        base();
        if (r() < 0.5) delete rec.first_name;
        addr();
        delete rec.address_2;
        if (r() < 0.5) email();
        else rec.dob = p.dob;
        break;
    }
    out.push({ record: rec, scenario, personKey: BigInt(p.person_key), householdKey: householdOf(p) });
  });
  return out;
}
