/**
 * Per-record normalization of a Match input record (spec section 2). Never throws: each bad
 * value is dropped for matching and reported in `warnings` as {field, code, message}. Empty or
 * whitespace-only values count as absent and are not reported.
 */
import type { CountryCode } from 'libphonenumber-js';
import type { RefDir } from '../reference-data.ts';
import { addressKey, normalizeAddress, normalizeCity, type AddressKey, type NormalizedAddress } from './address/address.ts';
import { cityZip5s } from './address/city-zips.ts';
import { addressesFromInput, scalarText } from './address/input.ts';
import { parseDob, parsePartialDob, type Dob } from './dob.ts';
import { emailMatchKey, emailSha256, normalizeEmail } from './email.ts';
import { normalizeNameSuffix, parseFullName } from './full-name.ts';
import { normalizeSha256 } from './hash.ts';
import { canonicalName } from './name.ts';
import { canonicalGivenNames } from './nickname.ts';
import { normalizePhone, phoneSha256 } from './phone.ts';
import { normalizeState } from './state.ts';
import type { FieldWarning, Normalized } from './types.ts';
import { normalizeZip } from './zip.ts';

export interface NormalizedEmail {
  normalized: string;
  matchKey: string;
  sha256: string;
  matchKeySha256: string;
}

export interface NormalizedPhone {
  e164: string;
  sha256: string;
}

export interface NameParts {
  first: string | null;
  middle: string | null;
  last: string | null;
  suffix: string | null;
}

export interface NormalizedRecord {
  rowId: string | null;
  emails: NormalizedEmail[];
  /** Validated pre-hashed email_sha256 / emails_sha256 values, as given (lower-cased). */
  emailSha256Inputs: string[];
  /** Every email hash to look up: raw-normalized, provider match key, and pre-hashed; deduped. */
  emailHashes: string[];
  phones: NormalizedPhone[];
  phoneSha256Inputs: string[];
  phoneHashes: string[];
  name: NameParts;
  /** Where the name came from: the separate fields, parsed full_name, or both. */
  nameSource: 'fields' | 'full_name' | 'mixed' | null;
  /** Nickname-canonical given names of `name.first` (includes the name itself). */
  firstNameCanonicals: string[];
  addresses: NormalizedAddress[];
  /** Blocking keys, parallel to `addresses` (null where too weak to block on). */
  addressKeys: (AddressKey | null)[];
  /**
   * The top-level ZIP5 of a record that has no address_1 (a ZIP-only or city/state/ZIP row): not an
   * address, but a locality the matcher blocks and scores on (name + ZIP, ZIP agreement).
   */
  localityZip5: string | null;
  /**
   * The ZIP5s of the city and state the record names (an address's, or the top-level city and state;
   * address/city-zips.ts) when it gives no ZIP5, or a ZIP5 that is not one of that city's (a mistyped ZIP):
   * its locality beside its own ZIPs, if any. Its own ZIPs are not repeated; empty when its ZIP fits its city.
   */
  cityZip5s: readonly string[];
  /** Blocking keys of those street addresses in each ZIP5 of their city but their own (address keys need a ZIP). */
  cityAddressKeys: AddressKey[];
  dob: Dob | null;
  /**
   * A dob given without its day ("03/1985" -> "1985-03") or as a year alone ("1985"), when `dob` could not be read
   * as a whole date: compared by year and month (or year) only, never a blocking key. Null otherwise.
   */
  dobPartial: string | null;
  /** The iag_person_id as given (trimmed); verify with decodeGraphPersonId before trusting it. */
  iagPersonId: string | null;
  warnings: FieldWarning[];
}

export interface NormalizeOptions {
  /** 1-indexed row position, used as the default row_id. */
  position?: number;
  today?: Date;
  defaultCountry?: CountryCode;
  referenceDir?: RefDir;
}

/** Values of a scalar field plus its array field, with warning paths. */
function collect(rec: Record<string, unknown>, single: string, multi: string, warnings: FieldWarning[]) {
  const out: { field: string; value: string }[] = [];
  const push = (field: string, v: unknown) => {
    if (v === undefined || v === null) return;
    const s = scalarText(v);
    if (s === null) warnings.push({ field, code: 'invalid_type', message: `${field} must be a string` });
    else if (s.trim() !== '') out.push({ field, value: s });
  };
  push(single, rec[single]);
  const list = rec[multi];
  if (Array.isArray(list)) list.forEach((v, i) => push(`${multi}[${i}]`, v));
  else if (typeof list === 'string')
    push(multi, list); // a lone string where an array belongs
  else if (list !== undefined && list !== null) {
    warnings.push({ field: multi, code: 'invalid_type', message: `${multi} must be an array of strings` });
  }
  return out;
}

function take<T>(field: string, r: Normalized<T>, warnings: FieldWarning[]): T | null {
  if (r.warning) warnings.push({ field, ...r.warning });
  return r.value;
}

function str(rec: Record<string, unknown>, key: string): string | null {
  const s = scalarText(rec[key]);
  return s !== null && s.trim() !== '' ? s : null;
}

/** The values of `a` then `b`, each once, in that order (a record has a handful: no Set needed). */
function distinct(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const v of a) if (!out.includes(v)) out.push(v);
  for (const v of b) if (!out.includes(v)) out.push(v);
  return out;
}

/** The iag_person_id of a record as normalizeMatchInput reads it (trimmed), or null. */
export function iagPersonIdOf(rec: Record<string, unknown>): string | null {
  const pid = str(rec, 'iag_person_id');
  return pid ? pid.trim() : null;
}

export function normalizeMatchInput(input: unknown, opts: NormalizeOptions = {}): NormalizedRecord {
  const warnings: FieldWarning[] = [];
  const rec: Record<string, unknown> =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  if (rec !== input) warnings.push({ field: '', code: 'invalid_type', message: 'record must be an object' });

  const rawRowId = scalarText(rec.row_id);
  let rowId = rawRowId !== null && rawRowId.trim() !== '' ? rawRowId : null;
  if (rec.row_id !== undefined && rowId === null) {
    warnings.push({ field: 'row_id', code: 'row_id_blank', message: 'row_id is blank; the row position is used' });
  }
  rowId ??= opts.position !== undefined ? String(opts.position) : null;

  // Lists, not Maps and Sets: a record has a handful of values, and spreading iterators cost more than the dedupe.
  const emails: NormalizedEmail[] = [];
  for (const { field, value } of collect(rec, 'email', 'emails', warnings)) {
    const n = take(field, normalizeEmail(value), warnings);
    if (!n || emails.some((e) => e.normalized === n)) continue;
    const matchKey = emailMatchKey(n);
    const sha256 = emailSha256(n);
    // Most addresses are their own match key (no provider folding): one hash, not two.
    emails.push({ normalized: n, matchKey, sha256, matchKeySha256: matchKey === n ? sha256 : emailSha256(matchKey) });
  }
  const emailSha256Inputs: string[] = [];
  for (const { field, value } of collect(rec, 'email_sha256', 'emails_sha256', warnings)) {
    const h = take(field, normalizeSha256(value, field), warnings);
    if (h && !emailSha256Inputs.includes(h)) emailSha256Inputs.push(h);
  }

  const phones: NormalizedPhone[] = [];
  for (const { field, value } of collect(rec, 'phone', 'phones', warnings)) {
    const e164 = take(field, normalizePhone(value, opts.defaultCountry), warnings);
    if (e164 && !phones.some((p) => p.e164 === e164)) phones.push({ e164, sha256: phoneSha256(e164) });
  }
  const phoneSha256Inputs: string[] = [];
  for (const { field, value } of collect(rec, 'phone_sha256', 'phones_sha256', warnings)) {
    const h = take(field, normalizeSha256(value, field), warnings);
    if (h && !phoneSha256Inputs.includes(h)) phoneSha256Inputs.push(h);
  }

  const name: NameParts = {
    first: canonicalName(str(rec, 'first_name')),
    middle: canonicalName(str(rec, 'middle_name')),
    last: canonicalName(str(rec, 'last_name')),
    suffix: normalizeNameSuffix(str(rec, 'name_suffix')),
  };
  // "John A." in first_name: the trailing initial is a middle initial, not part of the given name (CRM exports
  // often put it there); "Mary Ann" (two names) stays as it is.
  const withInitial = name.first ? /^(\S{2,}(?: \S{2,})*) ([A-Z])$/.exec(name.first) : null;
  if (withInitial) {
    name.first = withInitial[1]!;
    name.middle ??= withInitial[2]!;
  }
  const hadFields = name.first !== null || name.middle !== null || name.last !== null || name.suffix !== null;
  let nameSource: NormalizedRecord['nameSource'] = hadFields ? 'fields' : null;
  const full = str(rec, 'full_name');
  if (full && (!name.first || !name.last)) {
    const p = parseFullName(full);
    if (!p.first && !p.last) {
      warnings.push({ field: 'full_name', code: 'name_unparseable', message: 'full_name has no name words' });
    } else {
      name.first ??= p.first;
      name.last ??= p.last;
      name.middle ??= p.middle;
      name.suffix ??= p.suffix;
      nameSource = hadFields ? 'mixed' : 'full_name';
    }
  }
  const firstNameCanonicals = name.first ? canonicalGivenNames(name.first, opts.referenceDir) : [];

  const addresses: NormalizedAddress[] = [];
  const addressKeys: (AddressKey | null)[] = [];
  const seen: string[] = [];
  const collected = addressesFromInput(rec);
  for (const w of collected.warnings) warnings.push(w);
  for (const a of collected.addresses) {
    const r = normalizeAddress(a, opts.referenceDir);
    for (const w of r.warnings) warnings.push({ field: `${a.source}${w.part}`, code: w.code, message: w.message });
    if (!r.value) continue;
    // Dedupe on the blocking key so "APT 4" and "# 4" spellings of one address count once.
    const k = addressKey(r.value);
    const dedupe = k ? `${k.key}#${k.unit ?? ''}` : [r.value.line1, r.value.line2, r.value.zip5 ?? r.value.city].join('|');
    if (seen.includes(dedupe)) continue;
    seen.push(dedupe);
    addresses.push(r.value);
    addressKeys.push(k);
  }

  let localityZip5: string | null = null;
  if (!collected.addresses.some((a) => a.source === '')) {
    const zipRaw = str(rec, 'zip');
    if (zipRaw) localityZip5 = take('zip', normalizeZip(zipRaw), warnings)?.zip5 ?? null;
  }

  const city = cityLocality(rec, addresses, localityZip5, opts.referenceDir);

  const dobRaw = str(rec, 'dob');
  const parsed = dobRaw ? parseDob(dobRaw, opts.today) : null;
  const dobPartial = dobRaw && parsed?.warning?.code === 'dob_unparseable' ? parsePartialDob(dobRaw, opts.today) : null;
  const dob = parsed && !dobPartial ? take('dob', parsed, warnings) : null;
  if (dobPartial) {
    warnings.push({
      field: 'dob',
      code: 'dob_partial',
      message: `dob "${dobRaw!.trim()}" has no ${dobPartial.length === 4 ? 'month or day' : 'day'}; it is compared by ${dobPartial.length === 4 ? 'year' : 'year and month'} only`,
    });
  }

  const emailHashes: string[] = [];
  for (const e of emails) emailHashes.push(e.sha256, e.matchKeySha256);
  const phoneHashes: string[] = [];
  for (const p of phones) phoneHashes.push(p.sha256);
  return {
    rowId,
    emails,
    emailSha256Inputs,
    emailHashes: distinct(emailHashes, emailSha256Inputs),
    phones,
    phoneSha256Inputs,
    phoneHashes: distinct(phoneHashes, phoneSha256Inputs),
    name,
    nameSource,
    firstNameCanonicals,
    addresses,
    addressKeys,
    localityZip5,
    cityZip5s: city.zips,
    cityAddressKeys: city.keys,
    dob,
    dobPartial,
    iagPersonId: iagPersonIdOf(rec),
    warnings,
  };
}

/**
 * The city locality of a record: for each address (or, without address_1, the top-level city and state) that
 * names a city and gives no ZIP5, or a ZIP5 that is not one of that city's, the city's other ZIPs and the
 * street keyed in each of them.
 */
function cityLocality(
  rec: Record<string, unknown>,
  addresses: readonly NormalizedAddress[],
  localityZip5: string | null,
  dir: RefDir | undefined,
) {
  const zips: string[] = [];
  const keys: AddressKey[] = [];
  for (const a of addresses) {
    if (!a.city || !a.state) continue;
    const cityZips = cityZip5s(a.city, a.state, dir);
    // No ZIP, or a ZIP that is not one of its city's (a mistyped ZIP, or a city the ZIP does not name).
    if (a.zip5 === null || (cityZips.length && !cityZips.includes(a.zip5))) addCityZips(zips, keys, cityZips, a, addresses, localityZip5);
  }
  if (addresses.length === 0) {
    const city = str(rec, 'city');
    const state = city ? str(rec, 'state') : null;
    const cityZips = city && state ? cityZip5s(normalizeCity(city), normalizeState(state).value, dir) : [];
    if (cityZips.length && (localityZip5 === null || !cityZips.includes(localityZip5)))
      addCityZips(zips, keys, cityZips, null, addresses, localityZip5);
  }
  return { zips, keys };
}

/** Adds a city's ZIPs the record does not give itself, and its street keyed in each of them but its own. */
function addCityZips(
  zips: string[],
  keys: AddressKey[],
  cityZips: readonly string[],
  a: NormalizedAddress | null,
  addresses: readonly NormalizedAddress[],
  localityZip5: string | null,
) {
  const own = recordZips({ addresses, localityZip5 });
  for (const zip5 of cityZips) {
    if (!own.includes(zip5) && !zips.includes(zip5)) zips.push(zip5);
    const k = a && zip5 !== a.zip5 ? addressKey({ ...a, zip5 }) : null;
    if (k) keys.push(k);
  }
}

/** The dob the matcher compares: the whole date "YYYY-MM-DD", else a partial one ("YYYY-MM", "YYYY"), else null. */
export function comparedDob(row: Pick<NormalizedRecord, 'dob' | 'dobPartial'>): string | null {
  return row.dob?.iso ?? row.dobPartial;
}

/** The record's locality ZIP5s: its own (recordZips), then its city's where they differ (cityZip5s). */
export function localityZips(row: Pick<NormalizedRecord, 'addresses' | 'localityZip5' | 'cityZip5s'>): readonly string[] {
  const own = recordZips(row);
  for (const zip of row.cityZip5s) own.push(zip); // never one of its own (cityLocality)
  return own;
}

/** Distinct ZIP5s of a record: its addresses' in order, then its locality ZIP (the first is its spatial ZIP). */
export function recordZips(row: { readonly addresses: readonly NormalizedAddress[]; readonly localityZip5: string | null }): string[] {
  const out: string[] = [];
  for (const a of row.addresses) if (a.zip5 && !out.includes(a.zip5)) out.push(a.zip5);
  if (row.localityZip5 && !out.includes(row.localityZip5)) out.push(row.localityZip5);
  return out;
}
