/**
 * Collect the address inputs of a Match input record (spec section 2):
 * the top-level address_1/address_2/city/state/zip, then each `addresses` entry. In an entry,
 * address_1 is required, the ZIP is the first non-empty of zip, zip5, postal_code, zip_code,
 * and other keys are ignored. At the top level only `zip` names the ZIP (the aliases are
 * defined for entries only).
 */
import type { FieldWarning } from '../types.ts';
import type { AddressInput } from './address.ts';

export interface SourcedAddressInput extends AddressInput {
  /** Field path prefix for warnings: "" for top level, "addresses[2]." for an entry. */
  source: string;
}

const ZIP_ALIASES = ['zip', 'zip5', 'postal_code', 'zip_code'] as const;

/** Strings as is, finite numbers as digits (JSON ZIPs like 2134), anything else null. */
export function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  return null;
}

function nonEmpty(v: unknown): string | null {
  const s = scalarText(v);
  return s !== null && s.trim() !== '' ? s : null;
}

export function addressesFromInput(record: Record<string, unknown>): {
  addresses: SourcedAddressInput[];
  warnings: FieldWarning[];
} {
  const addresses: SourcedAddressInput[] = [];
  const warnings: FieldWarning[] = [];
  const top = nonEmpty(record.address_1);
  if (top) {
    addresses.push({
      source: '',
      address_1: top,
      address_2: nonEmpty(record.address_2),
      city: nonEmpty(record.city),
      state: nonEmpty(record.state),
      zip: nonEmpty(record.zip),
    });
  } else if (['address_2', 'city', 'state', 'zip'].some((k) => nonEmpty(record[k]))) {
    warnings.push({
      field: 'address_1',
      code: 'address_1_missing',
      message: 'address fields were given without address_1; only the ZIP (without a ZIP, the city and state) is used for matching',
    });
  }

  const list = record.addresses;
  if (list === undefined || list === null) return { addresses, warnings };
  if (!Array.isArray(list)) {
    warnings.push({ field: 'addresses', code: 'invalid_type', message: 'addresses must be an array' });
    return { addresses, warnings };
  }
  list.forEach((entry: unknown, i) => {
    const field = `addresses[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      warnings.push({ field, code: 'invalid_type', message: `${field} must be an object` });
      return;
    }
    const e = entry as Record<string, unknown>;
    const a1 = nonEmpty(e.address_1);
    if (!a1) {
      warnings.push({ field: `${field}.address_1`, code: 'address_1_missing', message: `${field} has no address_1` });
      return;
    }
    let zip: string | null = null;
    for (const k of ZIP_ALIASES) {
      zip = nonEmpty(e[k]);
      if (zip) break;
    }
    addresses.push({
      source: `${field}.`,
      address_1: a1,
      address_2: nonEmpty(e.address_2),
      city: nonEmpty(e.city),
      state: nonEmpty(e.state),
      zip,
    });
  });
  return { addresses, warnings };
}
