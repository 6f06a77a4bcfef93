/**
 * Whole-address normalization to USPS Publication 28 form, plus a compact blocking key.
 *
 * Missing city/state are filled from zips.csv when the ZIP is known (the ZIP is the most
 * reliable part of a customer-typed address); a state that disagrees with its ZIP is kept as
 * given but reported, because either could be the typo.
 */
import { loadZips, type RefDir } from '../../reference-data.ts';
import { normalizeState } from '../state.ts';
import { foldToAsciiUpper } from '../text.ts';
import type { NormalizeIssue } from '../types.ts';
import { normalizeZip } from '../zip.ts';
import { parseStreetLine, parseUnitLine, type StreetLine } from './street.ts';

export interface AddressInput {
  address_1?: string | null;
  address_2?: string | null;
  city?: string | null;
  state?: string | null;
  zip?: string | null;
}

/** The parsed street line's parts (house number, directionals, street, suffix, PO box), flattened. */
export interface NormalizedAddress extends Omit<StreetLine, 'unit' | 'line'> {
  /** Standardized delivery line without unit: "123 N MAIN ST", "PO BOX 12". */
  line1: string;
  /** Canonical unit ("APT 4", "# 12") or other secondary text; null when none. */
  line2: string | null;
  unitType: string | null;
  unitNumber: string | null;
  city: string | null;
  state: string | null;
  zip5: string | null;
  zip4: string | null;
}

export interface AddressIssue extends NormalizeIssue {
  /** Which input part the issue is about: address_1, address_2, city, state, zip. */
  part: keyof AddressInput;
}

export interface AddressResult {
  value: NormalizedAddress | null;
  warnings: AddressIssue[];
}

// USPS preferred city names spell these out ("SAINT LOUIS", "FORT WORTH", "MOUNT VERNON").
const CITY_PREFIX: Record<string, string> = { ST: 'SAINT', STE: 'SAINTE', FT: 'FORT', MT: 'MOUNT' };

export function normalizeCity(raw: string): string | null {
  const v = foldToAsciiUpper(raw)
    .replace(/['.]/g, '')
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (v === '' || !/[A-Z]/.test(v)) return null;
  const [head, ...rest] = v.split(' ');
  const expanded = CITY_PREFIX[head!];
  return expanded && rest.length ? [expanded, ...rest].join(' ') : v;
}

function text(v: string | null | undefined): string {
  return typeof v === 'string' ? v : '';
}

export function normalizeAddress(input: AddressInput, dir?: RefDir): AddressResult {
  const warnings: AddressIssue[] = [];
  const a1 = text(input.address_1).trim();
  if (a1 === '') {
    return { value: null, warnings: [{ part: 'address_1', code: 'empty', message: 'address_1 is empty' }] };
  }
  const street = parseStreetLine(a1, dir);
  if (street.line === '') {
    return {
      value: null,
      warnings: [{ part: 'address_1', code: 'address_malformed', message: 'address_1 has no street words' }],
    };
  }
  let unit = street.unit;
  let line2: string | null = unit?.text ?? null;
  const a2 = text(input.address_2).trim();
  if (a2 !== '') {
    const u2 = parseUnitLine(a2, dir);
    if (u2 && !unit) {
      unit = u2;
      line2 = u2.text;
    } else if (!u2 && !unit) {
      // Not a unit: keep cleaned text unless it is a care-of / attention line about a person.
      const cleaned = foldToAsciiUpper(a2)
        .replace(/[^A-Z0-9#/ -]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (cleaned && !/^(C ?\/? ?O|ATTN|ATTENTION)\b/.test(cleaned)) line2 = cleaned;
    }
  }

  let zip5: string | null = null;
  let zip4: string | null = null;
  if (text(input.zip).trim() !== '') {
    const z = normalizeZip(text(input.zip));
    if (z.value) ({ zip5, zip4 } = z.value);
    if (z.warning) warnings.push({ part: 'zip', ...z.warning });
  }
  let state: string | null = null;
  if (text(input.state).trim() !== '') {
    const s = normalizeState(text(input.state));
    state = s.value;
    if (s.warning) warnings.push({ part: 'state', ...s.warning });
  }
  let city = normalizeCity(text(input.city));

  const known = zip5 ? loadZips(dir).get(zip5) : undefined;
  if (known) {
    if (!state) state = known.state;
    else if (state !== known.state) {
      warnings.push({
        part: 'state',
        code: 'state_zip_mismatch',
        message: `state ${state} does not match ZIP ${zip5} (${known.state})`,
      });
    }
    if (!city && known.city) city = known.city;
  }

  return {
    value: {
      line1: street.line,
      line2,
      houseNumber: street.houseNumber,
      preDirectional: street.preDirectional,
      streetName: street.streetName,
      streetSuffix: street.streetSuffix,
      postDirectional: street.postDirectional,
      poBox: street.poBox,
      unitType: unit?.type ?? null,
      unitNumber: unit?.number ?? null,
      city,
      state,
      zip5,
      zip4,
    },
    warnings,
  };
}

export interface AddressKey {
  /** "123|MAIN|02134" (house number | street core | zip5), or "POBOX|12|02134". */
  key: string;
  /** Unit kept apart so building-level and unit-level blocking can both use the key. */
  unit: string | null;
}

/**
 * Blocking key: house number + street name core (no directionals, no suffix, no spaces) +
 * ZIP5. Without a ZIP5 the locality falls back to "CITY,STATE" so the key still blocks.
 * Returns null when there is neither a house number nor a PO box (too weak to block on).
 */
export function addressKey(addr: NormalizedAddress): AddressKey | null {
  const locality = addr.zip5 ?? (addr.city && addr.state ? `${addr.city},${addr.state}` : null);
  if (!locality) return null;
  const unit = addr.unitNumber ?? null;
  if (addr.poBox) return { key: `POBOX|${addr.poBox}|${locality}`, unit };
  if (!addr.houseNumber || !addr.streetName) return null;
  const core = addr.streetName.replace(/ /g, '');
  return { key: `${addr.houseNumber.replace(/ /g, '')}|${core}|${locality}`, unit };
}
